import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// One `exec` per `--state` file: a second exits at once, naming the first, instead of
    /// appending to the first's journal.
    @Suite struct ExecLockTests {
        @Test func aSecondExecOnTheSameStateExitsAtOnce() async throws {
            let harness = try await EndToEndHarness.running()
            let state = harness.path("exec.state")
            let first = try harness.client("exec", ["products", "--state", state, "--format", "json-patch", "--", "/bin/sh", "-c", "cat > /dev/null"])
            try await eventually("the first exec recorded the snapshot") { access(state, F_OK) == 0 }
            let stateBefore = readFile(state)

            let second = try await harness.run("exec", ["products", "--state", state, "--format", "json-patch", "--", "/bin/sh", "-c", "cat > /dev/null"])
            #expect(second.status == 1, "\(second.error)")
            #expect(second.error.contains("\(state) is the state of an exec already") && second.error.contains("process \(first.pid)"), "\(second.error)")
            #expect(readFile(state) == stateBefore, "the refused exec left the state alone")

            // The first goes on alone.
            try await harness.save(ProductVersions.csv(1))
            try await eventually("the first exec recorded version 1") { readFile(state) != stateBefore }
            #expect(first.exitStatus == nil, "\(first.errorOutput)")
        }
    }
}
