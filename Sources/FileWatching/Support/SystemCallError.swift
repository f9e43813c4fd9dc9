import Glibc

/// A failed system call: which call and the `errno` it left.
///
/// Carried by the watcher's typed errors, and by the daemon's server, state, systemd and
/// configuration errors, so a log line says exactly what the kernel refused
/// (`inotify_add_watch: No space left on device (errno 28)` is the inotify watch limit).
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The system call or libc function that failed, e.g. `"open"`.
    public var call: String
    /// The `errno` value it set.
    public var code: Int32

    /// A failure of `call` with the `errno` value `code`.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// Captures `errno` right after `call` failed.
    public static func lastError(of call: String) -> SystemCallError {
        SystemCallError(call: call, code: errno)
    }

    public var description: String {
        "\(call): \(String(cString: strerror(code))) (errno \(code))"
    }
}
