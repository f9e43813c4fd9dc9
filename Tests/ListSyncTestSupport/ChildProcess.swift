import Glibc

/// A child process of the tests — the real `listsyncd` or `listsync` — with its standard output
/// and error in files (which never fill up the way pipes do), stopped when the value goes away.
package final class ChildProcess {
    package let pid: pid_t
    package let outputPath: String
    package let errorPath: String
    package let arguments: [String]
    private var status: Int32?

    /// Starts `executable` with `arguments`, standard input from `/dev/null`.
    package init(_ executable: String, _ arguments: [String], outputPath: String, errorPath: String) throws {
        self.outputPath = outputPath
        self.errorPath = errorPath
        self.arguments = [executable] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = self.arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
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

    deinit {
        if self.exitStatus == nil {
            kill(self.pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(self.pid, &raw, 0)
        }
    }
}
