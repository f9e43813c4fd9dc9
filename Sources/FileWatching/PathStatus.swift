import DurableFiles
import Glibc

/// What `stat(2)` says about a watched path right now.
///
/// The watcher announces a path from its status once it has settled, and compares statuses on
/// every reconciliation tick to notice changes inotify did not report.
enum PathStatus: Hashable, Sendable {
    /// A file (or anything else that is not missing) is at the path.
    case present(FileIdentity)
    /// Nothing is at the path: `ENOENT`, or `ENOTDIR` because a directory on the way is gone.
    case missing
    /// `stat` failed otherwise, e.g. `EACCES` on a directory on the way. Announced as changed so
    /// the consumer's read reports the real error.
    case inaccessible(SystemCallError)

    /// Stats `path`, following symbolic links like the consumer's `open` will.
    init(ofPath path: String) {
        var status = stat()
        if stat(path, &status) == 0 {
            self = .present(FileIdentity(status))
        } else {
            let error = SystemCallError.lastError(of: "stat")
            self = error.code == ENOENT || error.code == ENOTDIR ? .missing : .inaccessible(error)
        }
    }

    /// Which file is at the path, when one is.
    var fileID: FileID? {
        guard case .present(let identity) = self else { return nil }
        return identity.fileID
    }
}
