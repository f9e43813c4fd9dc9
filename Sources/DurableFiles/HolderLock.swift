import Glibc

/// An exclusive `flock` on a lock file, held by one long-running process for its whole life, with
/// a line in the file that says who holds it — so that a second process exits at once and names
/// the first, instead of writing beside it.
///
/// The kernel drops the lock when the descriptor closes, however the process ends (also on
/// `kill -9`), so a lock file left behind never blocks the next holder. Only the holder writes
/// the file, so the line in it is always the current holder's.
///
/// One lock for every "one of us per resource" rule: the daemon's state directory, a mirror's
/// output and state, a SQLite sink's table.
public final class HolderLock: Sendable {
    /// Why the lock was not taken.
    public enum Failure: Error, Sendable {
        /// Another process holds it; the line it wrote, when there is one.
        case held(holder: String?)
        /// The lock file could not be opened, created or locked.
        case failed(SystemCallError)
    }

    /// The lock file.
    public let path: String
    private let descriptor: Int32

    /// Takes the lock on `path` (creating the file, mode 0644) without waiting, and writes
    /// `holder` (one line, e.g. this process's id) into it.
    ///
    /// - Throws: ``Failure/held(holder:)`` when another process holds it;
    ///   ``Failure/failed(_:)`` when the file cannot be opened or locked. A failure to record
    ///   `holder` is not an error: the lock is held all the same, and a second process then names
    ///   no holder.
    public init(path: String, holder: String) throws(Failure) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .failed(.lastError(of: "open")) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = SystemCallError.lastError(of: "flock")
            guard failure.code == EINTR else {
                defer { close(descriptor) }
                guard failure.code == EWOULDBLOCK else { throw .failed(failure) }
                throw .held(holder: Self.holder(in: descriptor))
            }
        }
        let line = Array((holder + "\n").utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = line.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// The first line of the lock file (at most 256 bytes), `nil` when empty.
    private static func holder(in descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let line = buffer[..<count].prefix { $0 != UInt8(ascii: "\n") && $0 != 0 }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    deinit {
        close(self.descriptor)
    }
}
