/// What the ``FileWatcher`` tells its consumer about one watched file.
///
/// Events are *hints to read*, not content: the consumer (the per-file tracker) reacts to
/// ``changed(path:check:)`` by reading the file with ``FileSnapshot/read(atPath:maximumAttempts:)``
/// and confirming the event's ``CompletenessCheck`` before using what it read, and to
/// ``missing(path:)`` by reporting the file as missing. Consecutive events for the
/// same path may repeat (a reconciliation can re-announce an unchanged file); the consumer must
/// treat them idempotently, e.g. by comparing the bytes it reads with the last version it saw.
public enum FileWatchEvent: Sendable, Hashable {
    /// The file at this path exists, has settled since its last change and no writer holds it:
    /// read it now. A read that `check` confirms is a complete version.
    case changed(path: String, check: CompletenessCheck)
    /// A writer modified the file at `since` and still holds it open (``WriterState``), for
    /// longer than a save takes: what it holds now is not a complete version (a slow export
    /// between its rows). Said once per writer; ``changed(path:check:)`` follows when it closes
    /// the file, however long that takes.
    case writing(path: String, since: ContinuousClock.Instant)
    /// The file changed while a writer (there since `since`) holds it open, and
    /// ``FileWatcher/Configuration/maximumWaitForWriter`` has passed since its first change not
    /// yet announced: a consumer that publishes such a file anyway (a log appended to for good)
    /// reads it now, without a check, and takes only its complete lines. Repeated each
    /// ``FileWatcher/Configuration/maximumWaitForWriter`` while the file keeps changing.
    case changedWhileWriting(path: String, since: ContinuousClock.Instant)
    /// The file at this path does not exist (or its directory vanished) after settling.
    case missing(path: String)

    /// The watched path this event is about, exactly as it was passed to the watcher.
    public var path: String {
        switch self {
        case .changed(let path, _), .writing(let path, _), .changedWhileWriting(let path, _), .missing(let path):
            return path
        }
    }
}
