import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// One `mirror` per output and per state file: a second exits at once, naming the first.
    @Suite struct MirrorLockTests {
        @Test func aSecondMirrorOnTheSameOutputOrStateExitsAtOnce() async throws {
            let harness = try await EndToEndHarness.running()
            let first = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv"), "--state", harness.path("shared.state")])
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "the first snapshot")
            let stateBefore = readFile(harness.path("shared.state"))

            let sameOutput = try await harness.run("mirror", ["products", "--output", harness.path("mirror.csv")])
            #expect(sameOutput.status == 1, "\(sameOutput.error)")
            #expect(sameOutput.error.contains("\(harness.path("mirror.csv")) is mirrored already") && sameOutput.error.contains("process \(first.pid)"), "\(sameOutput.error)")

            let sameState = try await harness.run("mirror", ["products", "--output", harness.path("other.csv"), "--state", harness.path("shared.state")])
            #expect(sameState.status == 1, "\(sameState.error)")
            #expect(sameState.error.contains("\(harness.path("shared.state")) is the state of a mirror already") && sameState.error.contains("process \(first.pid)"), "\(sameState.error)")
            #expect(access(harness.path("other.csv"), F_OK) != 0, "the refused mirror wrote nothing")
            #expect(readFile(harness.path("shared.state")) == stateBefore, "the refused mirrors left the state alone")

            // The default state is locked as well: a mirror whose --state names another mirror's
            // default state is refused.
            let byDefault = try harness.client("mirror", ["products", "--output", harness.path("default.csv")])
            try await harness.waitUntilMirrored("default.csv", equals: "products.csv", "the first snapshot, with the default state")
            let defaultState = harness.path(".default.csv.listsync-state")
            let onDefaultState = try await harness.run("mirror", ["products", "--output", harness.path("third.csv"), "--state", defaultState])
            #expect(onDefaultState.status == 1, "\(onDefaultState.error)")
            #expect(onDefaultState.error.contains("\(defaultState) is the state of a mirror already") && onDefaultState.error.contains("process \(byDefault.pid)"), "\(onDefaultState.error)")
            #expect(access(harness.path("third.csv"), F_OK) != 0, "the refused mirror wrote nothing")
            #expect(byDefault.exitStatus == nil, "\(byDefault.errorOutput)")

            // The first goes on alone.
            try await harness.save(ProductVersions.csv(1))
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version 1")
            #expect(first.exitStatus == nil, "\(first.errorOutput)")

            // A lock left by a killed mirror holds nobody back.
            first.send(SIGKILL)
            _ = try await first.waitForExit()
            let next = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv"), "--state", harness.path("shared.state")])
            try await harness.save(ProductVersions.csv(2))
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version 2, by the next mirror")
            #expect(next.exitStatus == nil, "\(next.errorOutput)")
        }
    }
}
