import DurableFiles

/// Why a ``FileWatcher`` could not start or could not accept a path.
public enum FileWatcherError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path is not absolute or has a `..` component; the watcher never resolves paths
    /// against the working directory (configuration must do that, where the base is known).
    case invalidPath(String, reason: String)
    /// `inotify_init` failed, typically `EMFILE` (fs.inotify.max_user_instances reached).
    case inotifyUnavailable(SystemCallError)
    /// libinotifytools waits with `select(2)`, which cannot handle descriptors at or above
    /// `FD_SETSIZE`; the inotify descriptor landed there because the process already had that
    /// many files open. Start the watcher earlier, before sockets and files are opened.
    case inotifyDescriptorTooHigh(descriptor: Int32, limit: Int32)
    /// The inotify thread could not be set up (pipe, thread creation, locating the descriptor).
    case inotifyThreadFailed(SystemCallError)
    /// ``FileWatcher/run()`` was called a second time; a watcher runs once.
    case alreadyRunning
    /// The watcher has finished running and accepts no more paths.
    case finished

    public var description: String {
        switch self {
        case .invalidPath(let path, let reason):
            return "cannot watch '\(path)': \(reason)"
        case .inotifyUnavailable(let error):
            return "inotify is unavailable: \(error)"
        case .inotifyDescriptorTooHigh(let descriptor, let limit):
            return "the inotify descriptor is \(descriptor), but libinotifytools' select() only handles descriptors below \(limit); start the watcher before opening many files"
        case .inotifyThreadFailed(let error):
            return "cannot start the inotify thread: \(error)"
        case .alreadyRunning:
            return "the file watcher is already running"
        case .finished:
            return "the file watcher has finished"
        }
    }
}
