import Glibc

/// A failed system call: which call, the `errno` it left, and, where the caller knows them, the
/// path it was made on and what the caller was doing.
///
/// The one error type for failed system calls: carried by the watcher's typed errors, the
/// daemon's server, state, systemd and configuration errors, the CLI's state files and locks, and
/// the blocking client socket (`UnixStreamSocket`), so a message says exactly what the kernel
/// refused (`inotify_add_watch: No space left on device (errno 28)` is the inotify watch limit).
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The system call or libc function that failed, e.g. `"open"`.
    public var call: String
    /// The `errno` value it set.
    public var code: Int32
    /// The file, directory or socket the call was made on, when the error names it itself
    /// (callers that wrap it with the path, like the daemon's `StateFileError`, leave it `nil`).
    public var path: String?
    /// What the caller was doing, in the words of its messages (e.g. `create`, `flush the
    /// directory`), when that says more than the call's name.
    public var operation: String?

    /// A failure of `call` with the `errno` value `code`, on `path` while doing `operation`.
    public init(call: String, code: Int32, path: String? = nil, operation: String? = nil) {
        self.call = call
        self.code = code
        self.path = path
        self.operation = operation
    }

    /// Captures `errno` right after `call` failed (on `path`, while doing `operation`).
    public static func lastError(of call: String, path: String? = nil, operation: String? = nil) -> SystemCallError {
        SystemCallError(call: call, code: errno, path: path, operation: operation)
    }

    /// This error, named as made on `path` while doing `operation`.
    public func on(_ path: String, doing operation: String? = nil) -> SystemCallError {
        SystemCallError(call: self.call, code: self.code, path: path, operation: operation ?? self.operation)
    }

    /// The system's text for ``code``, e.g. `No space left on device`.
    public var reason: String { String(cString: strerror(self.code)) }

    /// `PATH: cannot OPERATION: CALL: REASON (errno CODE)`, without the parts not known; e.g.
    /// `open: Permission denied (errno 13)` or `/srv/out.csv: cannot create: open: Permission
    /// denied (errno 13)`.
    public var description: String {
        var text = "\(call): \(self.reason) (errno \(code))"
        if let operation { text = "cannot \(operation): " + text }
        if let path { text = "\(path): " + text }
        return text
    }
}
