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
    var path: String { self.lock.path }
    private let lock: HolderLock

    /// Takes the lock on `stateDirectory` (created when missing) and records this process's pid
    /// in it; throws at once, without waiting, when another process holds it.
    init(stateDirectory: String) throws(StateDirectoryLockError) {
        let path = stateDirectory + "/" + Self.fileName
        do throws(StateFileError) {
            try StateFile.createDirectory(stateDirectory)
        } catch {
            throw .cannotLock(path: path, error)
        }
        do {
            self.lock = try HolderLock(path: path, holder: "\(getpid())")
        } catch {
            switch error {
            case .held(let holder): throw .heldByAnotherProcess(path: path, pid: holder.flatMap { pid_t($0) })
            case .failed(let failure): throw .cannotLock(path: path, .failed(path, failure))
            }
        }
    }
}
