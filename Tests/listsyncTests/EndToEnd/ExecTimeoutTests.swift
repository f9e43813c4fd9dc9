import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `listsync exec --timeout DURATION`: a command that runs too long gets SIGTERM, then SIGKILL
    /// 5 s later, and has failed; a long run is reported on standard error.
    @Suite struct ExecTimeoutTests {
        /// How `exec` is run: its failure policy, and whether each run is made by a process of its
        /// own (`--state`, ``RecordedRun``).
        struct Setup: CustomTestStringConvertible, Sendable {
            let policy: String
            let state: Bool

            var testDescription: String { "--on-error \(self.policy)\(self.state ? " --state" : "")" }

            static let all = [
                Setup(policy: "continue", state: false), Setup(policy: "stop", state: false),
                Setup(policy: "continue", state: true), Setup(policy: "stop", state: true),
            ]
        }

        @Test(arguments: Setup.all)
        func aCommandOverItsTimeoutIsTerminatedAndHasFailed(_ setup: Setup) async throws {
            let harness = try await EndToEndHarness.running()
            let script = #"cat > /dev/null; echo "$LISTSYNC_CURSOR" >> "$0/runs"; exec sleep 10"#
            var arguments = ["products", "--timeout", "500ms", "--on-error", setup.policy]
            if setup.state { arguments += ["--state", harness.path("exec.state")] }
            let exec = try harness.client("exec", arguments + ["--", "/bin/sh", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            if setup.state {
                try await eventually("exec recorded the snapshot's cursor") { access(harness.path("exec.state"), F_OK) == 0 }
            }
            try await harness.save(ProductVersions.csv(1))
            try await eventually("the first run started") { readFile(harness.path("runs")).split(separator: "\n").count == 1 }
            let started = ContinuousClock.now
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await eventually("the run was stopped and reported") {
                exec.errorOutput.contains("sleep failed on changeset \(epoch):1: timed out after 500ms, killed by signal 15")
                    || exec.errorOutput.contains("/bin/sh failed on changeset \(epoch):1: timed out after 500ms, killed by signal 15")
            }
            // Well before the command's own 10 s.
            #expect(ContinuousClock.now - started < .seconds(8), "\(exec.errorOutput)")
            if setup.policy == "stop" {
                #expect(try await exec.waitForExit() == 4, "\(exec.errorOutput)")
                #expect(exec.errorOutput.contains("--on-error stop"), "\(exec.errorOutput)")
            } else {
                // The stream goes on: the next changeset runs (and is stopped) too.
                try await harness.save(ProductVersions.csv(2))
                try await eventually("the second run was stopped and reported") {
                    exec.errorOutput.contains("changeset \(epoch):2: timed out after 500ms")
                }
                #expect(exec.exitStatus == nil, "\(exec.errorOutput)")
            }
            if setup.state {
                // A run stopped for its time limit is not recorded as done.
                #expect(!readFile(harness.path("exec.state.done")).contains("\(epoch):1"))
            }
        }

        @Test func aCommandThatIgnoresSIGTERMIsKilledFiveSecondsLater() async throws {
            let harness = try await EndToEndHarness.running()
            let script = #"trap '' TERM; cat > /dev/null; echo run >> "$0/runs"; sleep 30; echo survived >> "$0/runs""#
            let exec = try harness.client("exec", ["products", "--timeout", "500ms", "--", "/bin/sh", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            try await harness.save(ProductVersions.csv(1))
            try await eventually("the run started") { readFile(harness.path("runs")) == "run\n" }
            let started = ContinuousClock.now
            try await eventually("the run was killed and reported", timeout: .seconds(25)) {
                exec.errorOutput.contains("timed out after 500ms, killed by signal 9")
            }
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(5_400) && elapsed < .seconds(15), "killed after \(elapsed)")
            #expect(readFile(harness.path("runs")) == "run\n")
            #expect(exec.exitStatus == nil, "\(exec.errorOutput)")
        }

        @Test(arguments: [false, true])
        func aLongRunIsReportedOnStandardError(state: Bool) async throws {
            let harness = try await EndToEndHarness.running()
            // Each run takes its own time: the first 2 s, the second none.
            let script = #"cat > /dev/null; if mkdir "$0/slow" 2>/dev/null; then sleep 2; fi; echo run >> "$0/runs""#
            var arguments = ["products", "--warn-after", "300ms"]
            if state { arguments += ["--state", harness.path("exec.state")] }
            let exec = try harness.client("exec", arguments + ["--", "/bin/sh", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            if state {
                try await eventually("exec recorded the snapshot's cursor") { access(harness.path("exec.state"), F_OK) == 0 }
            }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await harness.save(ProductVersions.csv(1))
            try await eventually("the slow run was reported while it ran") {
                exec.errorOutput.contains("listsync: warning: /bin/sh has been running for more than 300ms on changeset \(epoch):1")
                    && readFile(harness.path("runs")).isEmpty
            }
            try await eventually("the slow run ended") { readFile(harness.path("runs")) == "run\n" }
            try await harness.save(ProductVersions.csv(2))
            try await eventually("the quick run ended") { readFile(harness.path("runs")) == "run\nrun\n" }
            try await Task.sleep(for: .milliseconds(600))
            #expect(!exec.errorOutput.contains("changeset \(epoch):2"), "\(exec.errorOutput)")
            #expect(!exec.errorOutput.contains("failed"), "\(exec.errorOutput)")
        }

        @Test func aTimeoutThatIsNoDurationIsAUsageError() async throws {
            let harness = try EndToEndHarness()
            for bad in ["10", "5x", "-1s", "0s"] {
                let result = try await harness.run("exec", ["products", "--timeout", bad, "--", "true"])
                #expect(result.status == 1 && result.error.contains("--timeout"), "\(bad): \(result.status) \(result.error)")
            }
        }
    }
}
