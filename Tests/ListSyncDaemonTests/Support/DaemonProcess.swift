import Glibc
import ListSyncTestSupport

/// The real `listsyncd` binary (or a wrapper that starts it), a ``ChildProcess`` of the tests
/// with its standard output and error in one log file.
final class DaemonProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The running process, which ListSyncTestSupport's one runner starts, waits for and stops.
    let process: ChildProcess
    var pid: pid_t { self.process.pid }
    let logPath: String

    /// The built `listsyncd`, next to the test bundle in the build directory.
    static var binaryPath: String {
        get throws { try BuiltProducts.path("listsyncd") }
    }

    /// The built `listsync`, beside `listsyncd`.
    static var cliPath: String {
        get throws { try BuiltProducts.path("listsync") }
    }

    /// Starts `executable` (the daemon, or a wrapper such as `systemd-socket-activate` with the
    /// daemon among `arguments`) with `environment` added to the test's own environment, less
    /// the variables of a service manager the tests themselves may run under.
    init(executable: String, arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        self.process = try ChildProcess(
            executable, arguments, outputPath: logPath, errorPath: logPath, environment: environment,
            withheld: ChildProcess.serviceManagerVariables)
    }

    /// Starts `listsyncd --config configPath`.
    convenience init(config configPath: String, environment: [String: String] = [:], logPath: String) throws {
        try self.init(executable: try Self.binaryPath, arguments: ["--config", configPath], environment: environment, logPath: logPath)
    }

    /// The exit code once the process has ended (128 + signal when killed); `nil` while it runs.
    var exitStatus: Int32? { self.process.exitStatus }

    func send(_ signal: Int32) {
        self.process.send(signal)
    }

    /// Waits for the process to end without holding a thread; returns its exit code (or 128 + signal).
    func exited(timeout: Duration = .seconds(10)) async throws -> Int32 {
        do {
            return try await self.process.waitForExit(timeout: timeout)
        } catch {
            throw Failure(description: "\(self.process.arguments.first ?? "listsyncd") did not exit within \(timeout)")
        }
    }

    /// A memory figure of the process from `/proc/PID/status`, in KiB: `VmRSS` (resident now)
    /// or `VmHWM` (the peak resident size since start or ``resetPeakMemory()``).
    func memoryKiB(_ field: String) throws -> Int {
        try self.process.memoryKiB(field)
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
}
