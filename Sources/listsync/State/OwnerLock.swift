#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a lock file, held by one long-running client for its whole life, so
/// that a second one on the same output or state exits at once instead of interleaving its
/// writes with the first's. The holder writes its process id into the file, so that the second
/// can name it.
///
/// The lock goes with the process (the kernel drops it when the descriptor closes, also on
/// SIGKILL), so a lock file left behind by a killed client never blocks the next one.
final class OwnerLock {
    /// The lock file.
    let path: String
    private let descriptor: Int32

    /// Why the lock was not taken.
    enum Failure: Error, CustomStringConvertible {
        /// Another process holds it; its id as it wrote it, when readable.
        case held(path: String, owner: String?)
        /// The lock file cannot be opened or created (`doing` is what failed), or locked.
        case system(path: String, doing: String, reason: String)

        var description: String {
            switch self {
            case .held(let path, let owner):
                "held by \(owner.map { "process \($0)" } ?? "another process") (lock \(path))"
            case .system(let path, let doing, let reason):
                "\(path): cannot \(doing): \(reason)"
            }
        }
    }

    /// Takes the lock on `path` (creating the file) without waiting, and records this process
    /// in it.
    ///
    /// - Throws: ``Failure/held(path:owner:)`` when another process holds it.
    init(path: String) throws(Failure) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .system(path: path, doing: "create the lock file", reason: String(cString: strerror(errno))) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EINTR else {
                defer { close(descriptor) }
                guard code == EWOULDBLOCK else { throw .system(path: path, doing: "lock", reason: String(cString: strerror(code))) }
                throw .held(path: path, owner: Self.owner(in: descriptor))
            }
        }
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// The process id recorded in the lock file; `nil` when there is none.
    private static func owner(in descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first.map(String.init)
        return text.flatMap { Int32($0) }.map(String.init)
    }

    deinit {
        close(self.descriptor)
    }
}

extension OwnerLock {
    /// The lock file of `mirror`'s output: the hidden `.NAME.listsync-lock` in its directory.
    static func path(forOutput output: AtomicFileWriter) -> String {
        "\(output.directory)/.\(output.name).listsync-lock"
    }
}
