#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the process was started with: its environment variables, identity and working directory.
///
/// The daemon reads this **once**, at the top of `main`, with ``current()``, and passes the value
/// down to everything that depends on it (configuration defaults, `NOTIFY_SOCKET`, `LISTEN_*`,
/// `WATCHDOG_*`, `JOURNAL_STREAM`). Nothing deeper reads `getenv`, so every consumer can be tested
/// with a hand-made value.
public struct ProcessEnvironment: Sendable, Hashable {
    /// The environment variables, by name.
    public var variables: [String: String]
    /// The real user id of the process (`getuid()`); `0` means root.
    public var userID: uid_t
    /// The id of the process (`getpid()`), compared with `LISTEN_PID` and `WATCHDOG_PID`.
    public var processID: pid_t
    /// The absolute working directory, used to make a relative `--config` path absolute.
    public var workingDirectory: String

    /// Creates an environment from explicit values (tests, or a caller that wants to override some).
    public init(variables: [String: String], userID: uid_t, processID: pid_t, workingDirectory: String) {
        self.variables = variables
        self.userID = userID
        self.processID = processID
        self.workingDirectory = workingDirectory
    }

    /// The value of the environment variable `name`, or `nil` when it is not set.
    public subscript(name: String) -> String? {
        self.variables[name]
    }

    /// Reads the current process's environment, ids and working directory.
    ///
    /// Call this once at start-up. When the working directory cannot be determined (it was
    /// removed), `/` is used: relative paths are then resolved against the root.
    ///
    /// - Complexity: O(*n*) in the size of the environment.
    public static func current() -> ProcessEnvironment {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let assignment = String(cString: pointer)
            if let equals = assignment.firstIndex(of: "=") {
                variables[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
            }
            entry += 1
        }
        var workingDirectory = "/"
        if let buffer = getcwd(nil, 0) {
            workingDirectory = String(cString: buffer)
            free(buffer)
        }
        return ProcessEnvironment(
            variables: variables,
            userID: getuid(),
            processID: getpid(),
            workingDirectory: workingDirectory
        )
    }
}
