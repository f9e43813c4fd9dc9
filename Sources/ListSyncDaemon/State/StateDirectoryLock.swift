import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The exclusive hold of one daemon on its `state_directory`: an `flock` on
/// `<state_directory>/.lock`, which holds the daemon's pid, taken before anything in the
/// directory is read or written and kept until the process ends (the kernel releases it then,
/// however the process ends — a `kill -9` leaves no stale lock).
///
/// Two daemons on one state directory would each save their versions over the other's slots and
/// logs, and a cursor could name two changesets; the second one therefore stops at once, before
/// it touches anything, naming the lock file and the pid of the daemon that holds it. (Watch
/// names never start with a dot, so `.lock` never collides with a watch's directory.)
final class StateDirectoryLock: Sendable {
    /// The lock file's name in the state directory.
    static let fileName = ".lock"

    /// The locked file.
    let path: String
    private let descriptor: Int32

    /// Takes the lock on `stateDirectory` (created when missing) and records this process's pid
    /// in it; throws at once, without waiting, when another process holds it.
    init(stateDirectory: String) throws(StateDirectoryLockError) {
        let path = stateDirectory + "/" + Self.fileName
        do throws(StateFileError) {
            try StateFile.createDirectory(stateDirectory)
        } catch {
            throw .cannotLock(path: path, error)
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotLock(path: path, .failed(path, .lastError(of: "open"))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = SystemCallError.lastError(of: "flock")
            defer { close(descriptor) }
            guard failure.code == EWOULDBLOCK else { throw .cannotLock(path: path, .failed(path, failure)) }
            throw .heldByAnotherProcess(path: path, pid: Self.recordedPID(in: descriptor))
        }
        // Only the holder writes the file, so the pid in it is always the holder's.
        let pid = Array("\(getpid())\n".utf8)
        guard ftruncate(descriptor, 0) == 0, pwrite(descriptor, pid, pid.count, 0) == pid.count else {
            let failure = SystemCallError.lastError(of: "write")
            close(descriptor)
            throw .cannotLock(path: path, .failed(path, failure))
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// The pid the holder wrote, if it reads as one.
    private static func recordedPID(in descriptor: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return pid_t(String(decoding: buffer[..<count], as: UTF8.self).trimmingNewlines)
    }

    deinit {
        close(self.descriptor)
    }
}

extension String {
    fileprivate var trimmingNewlines: String {
        String(self.prefix { $0 != "\n" && $0 != "\0" })
    }
}
