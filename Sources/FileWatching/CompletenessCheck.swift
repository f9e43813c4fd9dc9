/// Confirms that a read of an announced file saw a complete version and not a writer's half-done
/// work.
///
/// The watcher announces a file only when no writer has it open, but the reader runs later: by
/// then the next save may be under way. So the reader brackets its read with
/// ``beginRead()`` and ``CheckedRead/end(with:)``, which mark its start and end in the kernel's
/// inotify queue, and asks ``CheckedRead/confirm()`` whether — by every event queued up to those
/// marks — no writer held the file when the read began, nothing happened to it until it ended,
/// and nobody who opened it meanwhile still has it open. (Readers that had it open all along,
/// such as `tail -f`, do not count.) If so, the bytes read are a version some writer completed. If not, the read must be
/// dropped; the file settles again and the watcher announces it again.
///
/// What happened between the announcement and the read does not matter: a save completed in
/// between gives a newer complete version, and one under way when the read begins refuses it.
/// So a file saved every few milliseconds still gets reads through, as long as a read fits
/// between two saves.
public struct CompletenessCheck: Sendable, Hashable {
    let confirmations: ReadConfirmations
    /// The watched path, as the watcher normalised it.
    let path: String
    /// The file's event count when it was announced.
    let generation: UInt64
    /// How long ``CheckedRead/confirm()`` waits before marking the read's end when the read found
    /// the file empty (``FileWatcher/Configuration/emptyReadConfirmationDelay``). Whatever the
    /// last save was like: the next one may be a truncation in place that the kernel has not
    /// reported yet, and the end mark now comes right after the read.
    let emptyReadDelay: Duration
    /// When the file last changed before it was announced (its last event): publication latency
    /// is measured from here, the settle delay included.
    public let lastChange: ContinuousClock.Instant

    /// Call on the reading thread right before opening the file: marks the read's start.
    ///
    /// The mark also keeps the read's own `IN_OPEN` from merging with a writer's just before it
    /// (inotify merges identical events in a row), so the watcher sees that the writer opened the
    /// file.
    public func beginRead() -> CheckedRead {
        CheckedRead(confirmations: confirmations, id: confirmations.begin(path: path, generation: generation), emptyReadDelay: emptyReadDelay)
    }

    public static func == (left: CompletenessCheck, right: CompletenessCheck) -> Bool {
        left.confirmations === right.confirmations && left.path == right.path && left.generation == right.generation
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(confirmations))
        hasher.combine(path)
        hasher.combine(generation)
    }
}
