import Glibc
import ListSyncTestSupport

/// The real `listsyncd` binary, started as a child process with its output in a log file.
final class DaemonProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    let logPath: String
    private var exitStatus: Int32?

    /// The built `listsyncd`, next to the test bundle in the build directory.
    static var binaryPath: String {
        get throws { try BuiltProducts.path("listsyncd") }
    }

    /// The built `listsync`, beside `listsyncd`.
    static var cliPath: String {
        get throws { try BuiltProducts.path("listsync") }
    }

    /// Starts `executable` (the daemon, or a wrapper such as `systemd-socket-activate` with the
    /// daemon among `arguments`) with `environment` added to the test's own environment.
    init(executable: String, arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var inherited: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let assignment = String(cString: pointer)
            let name = assignment.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if environment[name] == nil, !["NOTIFY_SOCKET", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"].contains(name) {
                inherited.append(assignment)
            }
            entry += 1
        }
        let variables = inherited + environment.map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable): errno \(spawned)") }
        self.pid = pid
    }

    /// Starts `listsyncd --config configPath`.
    convenience init(config configPath: String, environment: [String: String] = [:], logPath: String) throws {
        try self.init(executable: try Self.binaryPath, arguments: ["--config", configPath], environment: environment, logPath: logPath)
    }

    func send(_ signal: Int32) {
        if self.exitStatus == nil { kill(self.pid, signal) }
    }

    /// Waits for the process to end; returns its exit code (or 128 + signal).
    func waitForExit(timeout: Duration = .seconds(10)) throws -> Int32 {
        if let exitStatus { return exitStatus }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            let result = waitpid(self.pid, &status, WNOHANG)
            if result == self.pid {
                let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                self.exitStatus = code
                return code
            }
            usleep(5_000)
        }
        throw Failure(description: "listsyncd did not exit within \(timeout)")
    }

    /// A memory figure of the process from `/proc/PID/status`, in KiB: `VmRSS` (resident now)
    /// or `VmHWM` (the peak resident size since start or ``resetPeakMemory()``).
    func memoryKiB(_ field: String) throws -> Int {
        let status = try Self.contents(of: "/proc/\(self.pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw Failure(description: "no \(field) in /proc/\(self.pid)/status") }
        return value
    }

    /// Starts measuring `VmHWM` afresh from the current resident size.
    func resetPeakMemory() throws {
        guard let file = fopen("/proc/\(self.pid)/clear_refs", "w") else { throw Failure(description: "cannot open clear_refs") }
        defer { fclose(file) }
        guard fputs("5", file) >= 0 else { throw Failure(description: "cannot write clear_refs") }
    }

    /// What the process wrote to standard output and error.
    var log: String {
        (try? Self.contents(of: self.logPath)) ?? ""
    }

    /// The text of the file at `path`.
    static func contents(of path: String) throws -> String {
        try FileContent.read(path)
    }

    deinit {
        if self.exitStatus == nil {
            kill(self.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(self.pid, &status, 0)
        }
    }
}
