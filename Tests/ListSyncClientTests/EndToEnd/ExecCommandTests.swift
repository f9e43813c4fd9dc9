import Glibc
import ListSyncProtocol
import Testing

extension ClientEndToEnd {
    /// `listsync exec NAME -- CMD`: one run per changeset, in order, one at a time.
    @Suite struct ExecCommandTests {
        @Test func theCommandRunsOncePerChangesetInOrderOneAtATime() async throws {
            let harness = try await EndToEndHarness.running()
            // Each run records its cursor, copies its input, and takes a while: a run that
            // overlapped another would find the lock directory taken.
            let script = """
                mkdir "$0/lock" || echo overlap >> "$0/runs"
                cat > "$0/input-$LISTSYNC_CURSOR"
                echo "$LISTSYNC_WATCH $LISTSYNC_CURSOR" >> "$0/runs"
                sleep 0.2
                rmdir "$0/lock"
                """
            let exec = try harness.client("exec", ["products", "--", "/bin/sh", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            for version in 1...3 {
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
            }
            try await eventually("three runs finished") { readFile(harness.path("runs")).split(separator: "\n").count == 3 && access(harness.path("lock"), F_OK) != 0 }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            let runs = readFile(harness.path("runs")).split(separator: "\n").map(String.init)
            #expect(runs == (1...3).map { "products \(epoch):\($0)" })
            for seq in 1...3 {
                let input = readFile(harness.path("input-\(epoch):\(seq)"))
                guard case .changeset(let changeset) = try MessageParser.serverMessage(ofLine: Array(input.utf8.dropLast())) else {
                    Issue.record("run \(seq) did not get a changeset: \(input)")
                    continue
                }
                #expect(changeset.cursor == Cursor(epoch: epoch, seq: UInt64(seq)) && input.hasSuffix("\n"))
            }
            #expect(exec.exitStatus == nil)
        }

        @Test func aFailingCommandIsReportedAndTheStreamGoesOn() async throws {
            let harness = try await EndToEndHarness.running()
            let exec = try harness.client("exec", ["products", "--", "/bin/sh", "-c", "cat >/dev/null; echo run >> \"$0/runs\"; exit 3", harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            for version in 1...2 {
                try await harness.save(ProductVersions.csv(version))
                try await eventually("run \(version)") { readFile(harness.path("runs")).split(separator: "\n").count == version }
            }
            #expect(exec.errorOutput.contains("failed"), "\(exec.errorOutput)")
            #expect(exec.exitStatus == nil)
        }

        @Test func noCommandIsAUsageError() async throws {
            let harness = try EndToEndHarness()
            let result = try await harness.run("exec", ["products"])
            #expect(result.status == 1 && result.error.contains("no command"), "\(result.error)")
        }
    }
}
