import Glibc
import ListSyncProtocol
import Testing
import ListSyncTestSupport

extension ExecEndToEnd {
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

        /// A command that does not read its whole input, fails, is killed, or reads late, at
        /// changesets smaller and larger than a pipe's buffer.
        struct Misbehaviour: CustomTestStringConvertible, Sendable {
            /// The shell command, run after the run is recorded.
            let command: String
            /// What `exec` reports on standard error about the large changeset, and a later part
            /// of that line.
            let report: String
            let detail: String

            var testDescription: String { self.command }

            static let all = [
                Misbehaviour(command: "true", report: "stopped reading its input on changeset", detail: "bytes"),
                Misbehaviour(command: "false", report: "failed on changeset", detail: "exited with status 1"),
                Misbehaviour(command: "head -c 10 >/dev/null", report: "stopped reading its input on changeset", detail: "bytes"),
                Misbehaviour(command: "sleep 2; echo x", report: "stopped reading its input on changeset", detail: "bytes"),
                Misbehaviour(command: "kill -9 $$", report: "failed on changeset", detail: "killed by signal 9"),
            ]
        }

        @Test(arguments: Misbehaviour.all)
        func aCommandThatStopsReadingFailsOrIsKilledIsReportedAndTheStreamGoesOn(_ misbehaviour: Misbehaviour) async throws {
            let harness = try await EndToEndHarness.running()
            let script = "echo run >> \"$0/runs\"; \(misbehaviour.command)"
            let exec = try harness.client("exec", ["products", "--", "/bin/sh", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            // Small, then about 1 MB (16 pipe buffers), then small again.
            let versions = [ProductVersions.csv(1), ProductVersions.bulk(rows: 10_000, nameLength: 80), ProductVersions.csv(3)]
            for (number, text) in zip(1..., versions) {
                try await harness.save(text)
                try await eventually("run \(number) of \(misbehaviour.command)", timeout: .seconds(60)) {
                    readFile(harness.path("runs")).split(separator: "\n").count == number
                }
            }
            try await harness.waitForVersion(3)
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await eventually("exec reported the large changeset") {
                exec.errorOutput.split(separator: "\n").contains { $0.contains("\(misbehaviour.report) \(epoch):2") && $0.contains(misbehaviour.detail) }
            }
            #expect(exec.exitStatus == nil, "exec is still running: \(exec.errorOutput)")
            #expect(!exec.errorOutput.contains("Fatal error"), "\(exec.errorOutput)")
        }

        /// A command that starts reading late and reads slowly gets its whole input, and nothing is
        /// reported about it.
        @Test func aSlowReaderGetsItsWholeInput() async throws {
            let harness = try await EndToEndHarness.running()
            let script = #"sleep 1; while IFS= read -r -n 4096 part; do printf '%s' "$part"; done > "$0/input-$LISTSYNC_CURSOR"; echo done >> "$0/runs""#
            let exec = try harness.client("exec", ["products", "--", "/bin/bash", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            try await harness.save(ProductVersions.bulk(rows: 5_000, nameLength: 80))
            try await harness.waitForVersion(1)
            try await eventually("the run is done", timeout: .seconds(60)) { readFile(harness.path("runs")) == "done\n" }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            let input = readFile(harness.path("input-\(epoch):1"))
            guard case .changeset(let changeset) = try MessageParser.serverMessage(ofLine: Array(input.utf8)) else {
                Issue.record("the slow reader did not get the whole changeset (\(input.utf8.count) bytes)")
                return
            }
            #expect(changeset.cursor.seq == 1 && input.utf8.count > 400_000)
            #expect(!exec.errorOutput.contains("stopped reading") && !exec.errorOutput.contains("failed"), "\(exec.errorOutput)")
        }

        /// A 50 MB changeset reaches a command that reads it all, whole; a command that reads 10
        /// bytes of it is reported and the stream goes on.
        @Test func aFiftyMegabyteChangesetReachesEveryCommandWhole() async throws {
            let harness = try await EndToEndHarness.running()
            let whole = try harness.client("exec", ["products", "--", "/bin/sh", "-c", "cat > \"$0/input-$LISTSYNC_CURSOR\"", harness.directory])
            let partial = try harness.client("exec", ["products", "--", "/bin/sh", "-c", "head -c 10 > \"$0/head-$LISTSYNC_CURSOR\"", harness.directory])
            try await eventually("both have subscribed") {
                whole.errorOutput.contains("subscribed to products") && partial.errorOutput.contains("subscribed to products")
            }
            try await harness.save(ProductVersions.bulk(rows: 250_000, nameLength: 180))
            // A debug daemon reads and diffs 50 MB, on two cores shared with the rest of the suite.
            try await harness.waitForVersion(1, timeout: .seconds(120))
            try await harness.save(ProductVersions.csv(2))
            try await harness.waitForVersion(2)
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            let large = Cursor(epoch: epoch, seq: 1)
            let next = Cursor(epoch: epoch, seq: 2)
            try await eventually("both ran on the changeset after the large one", timeout: .seconds(150)) {
                access(harness.path("input-\(next)"), F_OK) == 0 && access(harness.path("head-\(next)"), F_OK) == 0
            }
            let input = readFile(harness.path("input-\(large)"))
            #expect(input.utf8.count > 50_000_000 && input.hasSuffix("\n"))
            guard case .changeset(let changeset) = try MessageParser.serverMessage(ofLine: Array(input.utf8.dropLast())) else {
                Issue.record("the large input is not a changeset")
                return
            }
            let inserted = changeset.stages.flatMap { $0.elementInserted.map(\.record) + $0.sectionInserted.flatMap(\.records) }
            #expect(changeset.cursor == large && inserted.count == 250_000)
            #expect(readFile(harness.path("head-\(large)")) == String(input.prefix(10)))
            #expect(partial.errorOutput.contains("stopped reading its input"), "\(partial.errorOutput)")
            #expect(whole.exitStatus == nil && partial.exitStatus == nil, "\(whole.errorOutput) \(partial.errorOutput)")
        }

        /// With --on-error stop, the first failure ends `exec` with status 4, and no later
        /// changeset runs the command.
        @Test func onErrorStopEndsAtTheFirstFailureWithStatus4() async throws {
            let harness = try await EndToEndHarness.running()
            let script = "cat >/dev/null; echo run >> \"$0/runs\"; exit 3"
            let exec = try harness.client("exec", ["products", "--on-error", "stop", "--", "/bin/sh", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            try await harness.save(ProductVersions.csv(1))
            #expect(try await exec.waitForExit() == 4, "\(exec.errorOutput)")
            try await harness.save(ProductVersions.csv(2))
            try await harness.waitForVersion(2)
            #expect(readFile(harness.path("runs")) == "run\n")
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            #expect(exec.errorOutput.contains("failed on changeset \(epoch):1: exited with status 3") && exec.errorOutput.contains("--on-error stop"), "\(exec.errorOutput)")
        }

        /// A command (`sh -c` with the test's directory as `$0`) that logs its cursor to `starts`,
        /// takes its input, waits while the file `hold` exists, then logs its cursor to `log`.
        static let heldRun = """
            echo "$LISTSYNC_CURSOR" >> "$0/starts"
            cat > /dev/null
            while [ -e "$0/hold" ]; do sleep 0.05; done
            echo "$LISTSYNC_CURSOR" >> "$0/log"
            """

        /// `exec --state` killed with SIGKILL (with its command) while idle and while the command
        /// runs, with changesets published while it is down, and started again: its log lists
        /// each cursor exactly once, in order, without a gap; the command that was killed mid-run
        /// ran again. With --format json-patch, the state keeps the list the next patch applies to.
        @Test(arguments: ["ndjson", "json-patch"]) func aKilledExecResumesAndEachChangesetSucceedsOnce(format: String) async throws {
            let harness = try await EndToEndHarness.running()
            let arguments = ["products", "--state", harness.path("exec.state"), "--format", format, "--", "/bin/sh", "-c", Self.heldRun, harness.directory]
            var exec = try harness.client("exec", arguments)
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            try await eventually("exec recorded the snapshot's cursor") { access(harness.path("exec.state"), F_OK) == 0 }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            func lines(_ file: String) -> [String] { readFile(harness.path(file)).split(separator: "\n").map(String.init) }
            var version = 0
            var killedMidRun: [String] = []
            for round in 1...4 {
                // Caught up with the changesets published while it was down.
                try await eventually("the log reaches \(epoch):\(version)", timeout: .seconds(60)) { version == 0 || lines("log").last == "\(epoch):\(version)" }
                version += 1
                let cursor = "\(epoch):\(version)"
                let midRun = round % 2 == 1
                if midRun { try FileContent.write("", to: harness.path("hold")) }
                try await harness.save(ProductVersions.csv(version))
                if midRun {
                    try await eventually("the command runs on \(cursor)") { lines("starts").contains(cursor) }
                    killedMidRun.append(cursor)
                } else {
                    try await eventually("exec recorded \(cursor)") {
                        // The cursor alone, or (json-patch) the list at that cursor: a snapshot
                        // and the changesets after it, the last one that cursor's.
                        let last = (try? StateJournalFile.entries(harness.path("exec.state")))?.last ?? ""
                        return last == "\(cursor) products" || last.contains(#""watch":"products","cursor":"\#(cursor)""#)
                    }
                }
                try await exec.killWithDescendants()
                if midRun { try FileContent.unlink(harness.path("hold")) }
                for _ in 1...2 {
                    version += 1
                    try await harness.save(ProductVersions.csv(version))
                    try await harness.waitForVersion(UInt64(version))
                }
                exec = try harness.client("exec", arguments)
                try await eventually("exec resumed after restart \(round)") { exec.errorOutput.contains(": resuming") }
            }
            try await eventually("the log reaches \(epoch):\(version)", timeout: .seconds(60)) { lines("log").last == "\(epoch):\(version)" }
            #expect(lines("log") == (1...version).map { "\(epoch):\($0)" }, "each cursor once, in order")
            for cursor in killedMidRun {
                #expect(lines("starts").count { $0 == cursor } == 2, "the command killed on \(cursor) ran again")
            }
            #expect(!exec.errorOutput.contains(": snapshot"), "\(exec.errorOutput)")
            #expect(exec.exitStatus == nil, "\(exec.errorOutput)")
        }

        /// `exec --state` killed alone with SIGKILL while its command runs — so the command goes
        /// on and exits 0 after `exec` is gone — and started again: the run finishes and records
        /// the changeset, and the restarted `exec` does not run that command again.
        @Test func aCommandThatSucceedsAfterExecWasKilledRunsOnce() async throws {
            let harness = try await EndToEndHarness.running()
            let arguments = ["products", "--state", harness.path("exec.state"), "--", "/bin/sh", "-c", Self.heldRun, harness.directory]
            var exec = try harness.client("exec", arguments)
            try await eventually("exec recorded the snapshot's cursor") { access(harness.path("exec.state"), F_OK) == 0 }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            func lines(_ file: String) -> [String] { readFile(harness.path(file)).split(separator: "\n").map(String.init) }
            try FileContent.write("", to: harness.path("hold"))
            try await harness.save(ProductVersions.csv(1))
            try await eventually("the command runs on \(epoch):1") { lines("starts") == ["\(epoch):1"] }
            exec.send(SIGKILL)
            _ = try await exec.waitForExit()
            try FileContent.unlink(harness.path("hold"))
            try await eventually("the command finished after exec was killed") { lines("log") == ["\(epoch):1"] }
            try await harness.save(ProductVersions.csv(2))
            try await harness.waitForVersion(2)
            exec = try harness.client("exec", arguments)
            try await eventually("the log reaches \(epoch):2", timeout: .seconds(60)) { lines("log").last == "\(epoch):2" }
            #expect(lines("log") == ["\(epoch):1", "\(epoch):2"], "each cursor once, in order")
            #expect(lines("starts") == ["\(epoch):1", "\(epoch):2"], "the command ran once on each")
            #expect(exec.errorOutput.contains("changeset \(epoch):1 was done before exec restarted; not run again"), "\(exec.errorOutput)")
            #expect(exec.exitStatus == nil, "\(exec.errorOutput)")
        }

        /// With --state and --on-error stop, a changeset whose command failed is not recorded: the
        /// restarted `exec` runs it again, and goes on once it succeeds.
        @Test func aFailedChangesetRunsAgainAfterARestart() async throws {
            let harness = try await EndToEndHarness.running()
            // Fails the first time it sees a cursor, succeeds the second.
            let script = """
                cat > /dev/null
                if mkdir "$0/tried-$LISTSYNC_CURSOR" 2>/dev/null; then exit 5; fi
                echo "$LISTSYNC_CURSOR" >> "$0/log"
                """
            let arguments = ["products", "--state", harness.path("exec.state"), "--on-error", "stop", "--", "/bin/sh", "-c", script, harness.directory]
            let exec = try harness.client("exec", arguments)
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            try await eventually("exec recorded the snapshot's cursor") { access(harness.path("exec.state"), F_OK) == 0 }
            try await harness.save(ProductVersions.csv(1))
            #expect(try await exec.waitForExit() == 4, "\(exec.errorOutput)")
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            let restarted = try harness.client("exec", arguments)
            try await eventually("the failed changeset ran again") { readFile(harness.path("log")) == "\(epoch):1\n" }
            try await harness.save(ProductVersions.csv(2))
            // Version 2 fails once too: exec stops again; its third start succeeds on it.
            #expect(try await restarted.waitForExit() == 4, "\(restarted.errorOutput)")
            let third = try harness.client("exec", arguments)
            try await eventually("version 2 ran") { readFile(harness.path("log")) == "\(epoch):1\n\(epoch):2\n" }
            #expect(third.exitStatus == nil, "\(third.errorOutput)")
        }

        @Test func noCommandIsAUsageError() async throws {
            let harness = try EndToEndHarness()
            let result = try await harness.run("exec", ["products"])
            #expect(result.status == 1 && result.error.contains("no command"), "\(result.error)")
        }
    }
}
