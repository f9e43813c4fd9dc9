import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// The lock one long-running client holds for its whole life — `mirror` on its output and its
/// state, `exec --state` on its state — (a ``HolderLock`` holding its process id), so that a second one on the same output or
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

extension OwnerLock {
    /// Takes the lock at `path`, for what `what` says is owned (\"out.csv is mirrored\"): the
    /// message of a held lock is "`what` already: held by process N (lock PATH)".
    ///
    /// - Throws: ``ClientFailure/usage(_:)`` when another process holds it (exit status 1);
    ///   ``ClientFailure/data(_:)`` when the lock file cannot be created or locked.
    static func take(_ path: String, for what: String) throws(ClientFailure) -> OwnerLock {
        do {
            return try OwnerLock(path: path)
        } catch {
            guard case .held = error else { throw .data("\(error)") }
            throw .usage("\(what) already: \(error)")
        }
    }

    /// The lock file of `exec --state FILE`: `FILE.owner-lock` (`FILE.lock` is the lock each run
    /// of the command waits for, see ``RecordedRun``).
    static func path(forExecState state: StateJournal) -> String {
        state.path + ".owner-lock"
    }
}
