#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a daemon could not take its state directory.
enum StateDirectoryLockError: Error, Sendable, CustomStringConvertible {
    /// Another process holds the lock: another `listsyncd` uses the state directory.
    case heldByAnotherProcess(path: String, pid: pid_t?)
    /// The lock file could not be created or locked.
    case cannotLock(path: String, StateFileError)

    var description: String {
        switch self {
        case .heldByAnotherProcess(let path, let pid):
            let holder = pid.map { "another listsyncd (pid \($0))" } ?? "another listsyncd"
            return "the state directory is in use by \(holder): \(path) is locked; stop that daemon or give this one another state_directory"
        case .cannotLock(let path, let error):
            return "cannot lock the state directory (\(path)): \(error)"
        }
    }
}
