import Glibc

/// A failed system call: which call and the `errno` it left.
///
/// The one error type for failed system calls: carried by the watcher's typed errors, the
/// daemon's server, state, systemd and configuration errors, and the CLI's state files, so a log
/// line says exactly what the kernel refused (`inotify_add_watch: No space left on device
/// (errno 28)` is the inotify watch limit).
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

    /// The system's text for ``code``, e.g. `No space left on device`.
    public var reason: String { String(cString: strerror(self.code)) }

    public var description: String {
        "\(call): \(String(cString: strerror(code))) (errno \(code))"
    }
}
