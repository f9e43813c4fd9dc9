/// What the ``FileWatcher`` tells its consumer about one watched file.
///
/// Events are *hints to read*, not content: the consumer (the per-file tracker) reacts to
/// ``changed(_:)`` by reading the file with ``FileSnapshot/read(path:maximumAttempts:)`` and
/// to ``missing(_:)`` by reporting the file as missing. Consecutive events for the same path may
/// repeat (a reconciliation can re-announce an unchanged file); the consumer must treat
/// them idempotently, e.g. by comparing the bytes it reads with the last version it saw.
public enum FileWatchEvent: Sendable, Hashable {
    /// The file at this path exists and has settled since its last change: read it now.
    case changed(path: String)
    /// The file at this path does not exist (or its directory vanished) after settling.
    case missing(path: String)

    /// The watched path this event is about, exactly as it was passed to the watcher.
    public var path: String {
        switch self {
        case .changed(let path), .missing(let path):
            return path
        }
    }
}
