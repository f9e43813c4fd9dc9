import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// The lock one long-running client (`mirror`) holds on its output and its state for its whole
/// life (a ``HolderLock`` holding its process id), so that a second one on the same output or
/// state exits at once instead of interleaving its writes with the first's.
final class OwnerLock {
    /// The lock file.
    var path: String { self.lock.path }
    private let lock: HolderLock

    /// Why the lock was not taken.
    enum Failure: Error, CustomStringConvertible {
        /// Another process holds it; its id as it wrote it, when readable.
        case held(path: String, owner: String?)
        /// The lock file cannot be opened or created, or locked: the call, the file and the step.
        case system(SystemCallError)

        var description: String {
            switch self {
            case .held(let path, let owner):
                "held by \(owner.map { "process \($0)" } ?? "another process") (lock \(path))"
            case .system(let error):
                "\(error)"
            }
        }
    }

    /// Takes the lock on `path` (creating the file) without waiting, and records this process
    /// in it.
    ///
    /// - Throws: ``Failure/held(path:owner:)`` when another process holds it.
    init(path: String) throws(Failure) {
        do {
            self.lock = try HolderLock(path: path, holder: "\(getpid())")
        } catch {
            switch error {
            case .held(let holder): throw .held(path: path, owner: holder.flatMap { Int32($0) }.map(String.init))
            case .failed(let failure):
                throw .system(failure.on(path, doing: failure.call == "flock" ? "lock" : "create the lock file"))
            }
        }
    }
}

extension OwnerLock {
    /// The lock file of `mirror`'s output: the hidden `.NAME.listsync-lock` in its directory.
    static func path(forOutput output: AtomicFileWriter) -> String {
        "\(output.directory)/.\(output.name).listsync-lock"
    }
}
