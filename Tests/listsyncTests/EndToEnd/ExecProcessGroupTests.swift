import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `listsync exec --timeout`, and a signal to `exec` itself: the signals go to the command's
    /// whole process group, so that what `sh -c` started stops with it, with and without
    /// `--state`.
    @Suite struct ExecProcessGroupTests {
        @Test(arguments: [false, true])
        func aTimedOutCommandsGrandchildrenStopWithIt(state: Bool) async throws {
            let harness = try await EndToEndHarness.running()
            // The grandchild writes a marker 3 s later.
            let (exec, leader, grandchild) = try await Self.execRunningAGrandchild(
                harness, options: ["--timeout", "500ms"], state: state, grandchild: #"sleep 3; echo late > "$0/marker""#
            )
            try await eventually("the run was stopped and reported") {
                exec.errorOutput.contains("/bin/sh failed on changeset") && exec.errorOutput.contains("timed out after 500ms")
            }
            try await eventually("the grandchild is gone") { !Self.isLive(grandchild) }
            try await eventually("no process of the command's group remains") { Self.liveMembers(ofGroup: leader).isEmpty }
            // Past the moment the grandchild would have written its marker.
            try await Task.sleep(for: .seconds(4))
            #expect(access(harness.path("marker"), F_OK) != 0, "the grandchild outlived the timeout: \(exec.errorOutput)")
            #expect(Self.liveMembers(ofGroup: leader).isEmpty)
            #expect(exec.exitStatus == nil, "\(exec.errorOutput)")
        }

        /// SIGTERM or SIGHUP (as SIGINT, which the test's process may have been started ignoring)
        /// to `exec` goes on to the running command's group (through
        /// the run's process with `--state`): nothing of it outlives `exec`.
        @Test(arguments: [(SIGTERM, false), (SIGTERM, true), (SIGHUP, false), (SIGHUP, true)])
        func aSignalToExecStopsTheCommandsGroup(signal: Int32, state: Bool) async throws {
            let harness = try await EndToEndHarness.running()
            let (exec, leader, grandchild) = try await Self.execRunningAGrandchild(
                harness, options: [], state: state, grandchild: "sleep 30"
            )
            #expect(!Self.liveMembers(ofGroup: leader).isEmpty)

            exec.send(signal)
            let status = try await exec.waitForExit()
            #expect(status == 128 + signal, "exec ends by the signal, as before: \(exec.errorOutput)")
            try await eventually("no process of the command's group remains", timeout: .seconds(10)) {
                !Self.isLive(grandchild) && Self.liveMembers(ofGroup: leader).isEmpty
            }
        }

        /// Starts `listsync exec products OPTIONS [--state] -- /bin/sh -c SCRIPT`, saves a version
        /// and waits until the command runs a grandchild of exec's: the shell records its pid and
        /// its process group (from /proc/$$/stat, while it runs), starts `sh -c 'GRANDCHILD'`
        /// (`$0` is the harness's directory) after it records its own pid, and waits for it.
        /// Returns exec, the command's pid and the grandchild's; the command leads a process group
        /// of its own (else "no process of the group remains" would hold trivially).
        static func execRunningAGrandchild(
            _ harness: EndToEndHarness, options: [String], state: Bool, grandchild: String
        ) async throws -> (exec: ChildProcess, leader: pid_t, grandchild: pid_t) {
            let script = #"cat > /dev/null; echo $$ > "$0/leader"; cut -d' ' -f5 /proc/$$/stat > "$0/group"; sh -c 'echo $$ > "$0/grandchild"; \#(grandchild)' "$0" & wait"#
            var arguments = ["products"] + options
            if state { arguments += ["--state", harness.path("exec.state")] }
            let exec = try harness.client("exec", arguments + ["--", "/bin/sh", "-c", script, harness.directory])
            try await eventually("exec has subscribed") { exec.errorOutput.contains("subscribed to products") }
            if state {
                try await eventually("exec recorded the snapshot's cursor") { access(harness.path("exec.state"), F_OK) == 0 }
            }
            try await harness.save(ProductVersions.csv(1))
            try await eventually("the grandchild started") { readFile(harness.path("grandchild")).hasSuffix("\n") }
            let leader = try #require(pid_t(Self.firstLine(of: harness.path("leader"))))
            let grandchildPID = try #require(pid_t(Self.firstLine(of: harness.path("grandchild"))))
            #expect(Self.firstLine(of: harness.path("group")) == "\(leader)", "the command leads a process group of its own")
            return (exec, leader, grandchildPID)
        }

        /// The first line of the file at `path`.
        static func firstLine(of path: String) -> String {
            readFile(path).split(separator: "\n").first.map(String.init) ?? ""
        }

        /// Whether process `pid` exists and is not a zombie.
        static func isLive(_ pid: pid_t) -> Bool {
            guard let stat = Self.stat(of: pid) else { return false }
            return stat.state != "Z"
        }

        /// The live (not zombie) processes whose process group is `group`.
        static func liveMembers(ofGroup group: pid_t) -> [pid_t] {
            guard let directory = opendir("/proc") else { return [] }
            defer { closedir(directory) }
            var members: [pid_t] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard let pid = pid_t(name), let stat = Self.stat(of: pid) else { continue }
                if stat.group == group && stat.state != "Z" { members.append(pid) }
            }
            return members
        }

        /// The state letter and process group of `pid`, from `/proc/PID/stat`.
        private static func stat(of pid: pid_t) -> (state: Character, group: pid_t)? {
            let text = readFile("/proc/\(pid)/stat")
            // "PID (COMM) STATE PPID PGRP …": COMM may hold spaces and parentheses.
            guard let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let state = fields[0].first, let group = pid_t(fields[2]) else { return nil }
            return (state, group)
        }
    }
}
