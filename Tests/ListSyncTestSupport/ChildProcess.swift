import Foundation
import Glibc

/// A child process of the tests — the real `listsyncd` or `listsync` — with its standard output
/// and error in files (which never fill up the way pipes do), stopped when the value goes away.
/// Nothing here blocks a thread of the cooperative pool: exits are polled (`WNOHANG`) between
/// `Task.sleep`s, and a process killed when the value goes away is reaped on a thread of its own.
package final class ChildProcess {
    package let pid: pid_t
    package let outputPath: String
    package let errorPath: String
    package let arguments: [String]
    private var status: Int32?
    /// Set by ``detach()``: the process is left to finish on its own.
    private var isDetached = false

    /// Variables a service manager sets for the process it starts, which a test's own
    /// environment may hold when the tests run under one: the daemon would take them as its own.
    package static let serviceManagerVariables: Set<String> = [
        "NOTIFY_SOCKET", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM",
    ]

    /// Starts `executable` with `arguments`, standard input from `/dev/null`, in the test's
    /// environment without the variables `withheld` and with `environment` added, in
    /// `workingDirectory` (by default the test's). When `errorPath` is `outputPath`, both
    /// streams go to one file, in the order they were written.
    package init(
        _ executable: String, _ arguments: [String], outputPath: String, errorPath: String, environment: [String: String] = [:],
        withheld: Set<String> = [], workingDirectory: String? = nil
    ) throws {
        self.outputPath = outputPath
        self.errorPath = errorPath
        let commandLine = [executable] + arguments
        self.arguments = commandLine
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if errorPath == outputPath {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        var variables: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let assignment = String(cString: pointer)
            let name = String(assignment.prefix { $0 != "=" })
            if environment[name] == nil, !withheld.contains(name) { variables.append(assignment) }
            entry += 1
        }
        variables += environment.map { "\($0.key)=\($0.value)" }
        // posix_spawn's own change of directory (`addchdir_np`) is not visible to Swift: a shell
        // changes directory and replaces itself with the program.
        let command = workingDirectory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0] + commandLine } ?? commandLine
        let argv = command.map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        // (Not while a test writes a file whole: the child would hold it open until its exec.)
        let result = DescriptorInheritance.withoutChildStarts {
            posix_spawn(&pid, workingDirectory == nil ? executable : "/bin/sh", &actions, nil, argv, envp)
        }
        guard result == 0 else { throw TestFailure("cannot start \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// The exit status once the process has ended (128 + signal when killed); `nil` while it runs.
    package var exitStatus: Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(self.pid, &raw, WNOHANG) == self.pid else { return nil }
        let status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        self.status = status
        return status
    }

    /// Waits for the process to exit; fails after `timeout`.
    package func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        try await eventually("\(self.arguments.joined(separator: " ")) exits", timeout: timeout) { self.exitStatus != nil }
        return self.exitStatus ?? -1
    }

    /// Runs `executable` with `arguments` to its end (a tool: `sed`, `cp`, `pg_ctl`); fails
    /// unless it exits 0. Returns the finished process, for its output.
    @discardableResult
    package static func runToEnd(
        _ executable: String, _ arguments: [String], outputPath: String, errorPath: String, timeout: Duration = .seconds(20)
    ) async throws -> ChildProcess {
        let process = try ChildProcess(executable, arguments, outputPath: outputPath, errorPath: errorPath)
        let status = try await process.waitForExit(timeout: timeout)
        guard status == 0 else { throw TestFailure("\(executable) \(arguments) exited \(status): \(process.errorOutput)") }
        return process
    }

    /// A memory figure of the running process from `/proc/PID/status`, in KiB: `VmRSS` (resident
    /// now) or `VmHWM` (the peak resident size since start, or since `clear_refs`).
    package func memoryKiB(_ field: String) throws -> Int {
        try self.figure(field, in: "status")
    }

    /// A counter of the running process from `/proc/PID/io`, in bytes: e.g. `write_bytes` (what
    /// it caused to be written to storage: the pages it dirtied) or `wchar` (what it passed to
    /// `write` and the like).
    package func ioBytes(_ field: String) throws -> Int {
        try self.figure(field, in: "io")
    }

    /// The number after `field:` in `/proc/PID/<file>`.
    private func figure(_ field: String, in file: String) throws -> Int {
        let text = try FileContent.read("/proc/\(self.pid)/\(file)")
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw TestFailure("no \(field) in /proc/\(self.pid)/\(file)") }
        return value
    }

    /// Sends `signal` while the process runs.
    package func send(_ signal: Int32) {
        if self.exitStatus == nil { kill(self.pid, signal) }
    }

    /// Kills the process and every process it started (and they started) with SIGKILL, as a
    /// service manager stopping a service's whole control group does, and waits for it to end.
    package func killWithDescendants() async throws {
        // The tree as it is now: once the process is gone, its children are adopted by another.
        var parents: [pid_t: pid_t] = [:]
        if let proc = opendir("/proc") {
            defer { closedir(proc) }
            while let entry = readdir(proc) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard let pid = pid_t(name) else { continue }
                // The field after the command name (which is in parentheses) is the state, then the parent.
                let stat = readFile("/proc/\(pid)/stat")
                guard let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, let parent = pid_t(fields[1]) { parents[pid] = parent }
            }
        }
        var tree = [self.pid]
        var index = 0
        while index < tree.count {
            tree += parents.filter { $0.value == tree[index] }.map(\.key)
            index += 1
        }
        for pid in tree { kill(pid, SIGKILL) }
        _ = try await self.waitForExit()
    }

    /// Stops the process with SIGTERM (SIGKILL if it lingers) and returns its status.
    @discardableResult
    package func stop() async throws -> Int32 {
        self.send(SIGTERM)
        do {
            return try await self.waitForExit(timeout: .seconds(5))
        } catch {
            self.send(SIGKILL)
            return try await self.waitForExit(timeout: .seconds(5))
        }
    }

    /// What the process wrote to standard output so far.
    package var output: String { readFile(self.outputPath) }
    /// What the process wrote to standard error so far.
    package var errorOutput: String { readFile(self.errorPath) }

    /// The complete lines of standard output so far.
    package var outputLines: [Substring] {
        let output = self.output
        guard let lastNewline = output.lastIndex(of: "\n") else { return [] }
        return output[..<lastNewline].split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Leaves the process to run to its end (it is no longer killed when the value goes away),
    /// and reaps it then on a thread of its own — for clean-up that must not hold up a test.
    package func detach() {
        guard !self.isDetached, self.exitStatus == nil else { return }
        self.isDetached = true
        let pid = self.pid
        Thread.detachNewThread {
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }

    deinit {
        if !self.isDetached, self.exitStatus == nil {
            let pid = self.pid
            kill(pid, SIGKILL)
            // Reaped on a thread of its own: the value may go away on a thread of the pool.
            Thread.detachNewThread {
                var raw: Int32 = 0
                waitpid(pid, &raw, 0)
            }
        }
    }
}
