/// What the ``FileWatcher`` tells its consumer about one watched file.
///
/// Events are *hints to read*, not content: the consumer (the per-file tracker) reacts to
/// ``changed(path:check:)`` by reading the file with ``FileSnapshot/read(atPath:maximumAttempts:)``
/// — and, when the event carries a ``CompletenessCheck``, by confirming it before using what it
/// read — and to ``missing(path:)`` by reporting the file as missing. Consecutive events for the
/// same path may repeat (a reconciliation can re-announce an unchanged file); the consumer must
/// treat them idempotently, e.g. by comparing the bytes it reads with the last version it saw.
public enum FileWatchEvent: Sendable, Hashable {
    /// The file at this path exists and has settled since its last change: read it now.
    ///
    /// `check` is present when no writer had the file open at the announcement: a read confirmed
    /// by it is a complete version. It is `nil` when the file is announced although a writer still
    /// holds it open (it was written for longer than
    /// ``FileWatcher/Configuration/maximumWaitForWriter``, as a log is): that read is used as it is.
    case changed(path: String, check: CompletenessCheck?)
    /// The file at this path does not exist (or its directory vanished) after settling.
    case missing(path: String)

    /// The watched path this event is about, exactly as it was passed to the watcher.
    public var path: String {
        switch self {
        case .changed(let path, _), .missing(let path):
            return path
        }
    }

    /// The check a read prompted by this event must pass, if any.
    public var check: CompletenessCheck? {
        switch self {
        case .changed(_, let check): return check
        case .missing: return nil
        }
    }
}
