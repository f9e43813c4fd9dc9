/// Whether a writer holds a watched file, as far as inotify tells.
///
/// Inotify does not say an open's mode, so a *writer* is an open followed by `IN_MODIFY` and
/// not yet by `IN_CLOSE_WRITE`. Whoever opens the file and writes nothing — `tail -f`, a viewer,
/// a log shipper, a backup — only reads, and never holds a version back however long it keeps
/// the file open. Only a writer does: what the file holds while one has modified it and still
/// has it open is not a version (a slow export between its rows), so the watcher does not
/// announce it as one (``FileWatchEvent/writing(path:since:)``).
enum WriterState: Hashable {
    /// No writer is known to hold the file: since the last `IN_CLOSE_WRITE`, nothing modified it.
    case none
    /// Since `since`, someone has modified the file and not yet closed what it wrote;
    /// `announced` once ``FileWatchEvent/writing(path:since:)`` said so.
    case writing(since: ContinuousClock.Instant, announced: Bool)
    /// Events were lost (the inotify queue overflowed) while the file was changing, so whether a
    /// writer still holds it is not known: it counts as written until its `stat` (size,
    /// modification time) has stayed `observed` since `stableSince` for the writer bound
    /// (``FileWatcher/Configuration/maximumWaitForWriter``), or until inotify shows a writer
    /// again (`IN_MODIFY`) or one closing (`IN_CLOSE_WRITE`).
    case unknown(observed: PathStatus, stableSince: ContinuousClock.Instant)

    /// Whether the file may be incomplete because someone may be writing it.
    var mayBeWritten: Bool {
        if case .none = self { return false }
        return true
    }

    /// Follows an event about the file's entry: `IN_MODIFY` makes a writer, `IN_CLOSE_WRITE` ends
    /// it, and a rename over the entry or its removal puts another file there, which nobody
    /// writes yet (whoever has the old one open does not write the new one).
    ///
    /// Inotify does not say which descriptor closed, so any `IN_CLOSE_WRITE` ends the hold — also
    /// that of another program that opened the file for writing and wrote nothing (`: >> file`)
    /// while a slow writer still has it open. Counting opens would not help: `IN_OPEN` carries
    /// no mode, so a reader still holding the file would count as a writer. The limit is stated
    /// in listsyncd.toml(5) and pinned by `FileWatcherTests.Writers`.
    mutating func note(_ mask: InotifyEvent.Mask, now: ContinuousClock.Instant) {
        if !mask.isDisjoint(with: [.movedTo, .movedFrom, .delete, .closeWrite]) {
            self = .none
        }
        if mask.contains(.modify) {
            if case .writing = self { return }
            self = .writing(since: now, announced: false)
        }
    }
}
