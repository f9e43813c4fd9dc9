/// Confirms, after a read, that nothing happened to a file since the watcher announced it complete
/// — so the bytes read are that complete version and not a writer's half-done work.
///
/// The watcher announces a file only when no writer has it open, but the reader runs later: by
/// then the next in-place save may have truncated it. ``confirm(_:)`` asks the watcher — after the
/// inotify thread has handed over every event the kernel queued until now — whether any event
/// changed the file since the announcement, or someone has it open. If so, the read must be
/// dropped; the file settles again and the watcher announces it again.
public struct CompletenessCheck: Sendable, Hashable {
    let confirmations: ReadConfirmations
    /// The watched path, as the watcher normalised it.
    let path: String
    /// The file's event count when it was announced.
    let generation: UInt64
    /// How long ``confirm(_:)`` waits first when the read found the file empty
    /// (``FileWatcher/Configuration/emptyReadConfirmationDelay`` for a file written in place, zero
    /// for one renamed into place).
    let emptyReadDelay: Duration

    /// Call right before reading the file: makes sure the read's own `IN_OPEN` cannot merge with
    /// a writer's that came just before it (inotify merges identical events in a row), so the
    /// watcher sees that the writer has the file open.
    public func willRead() {
        InotifyThread.separateQueuedEvents()
    }

    /// Whether the file is unchanged since the announcement: `true` means `read`, made after
    /// the announcement and finished before this call, saw a complete version. `false` also when
    /// the watcher stopped or lost events (it then re-checks every file).
    public func confirm(_ read: FileSnapshot) async -> Bool {
        let isEmpty = if case .present(let bytes, _) = read { bytes.isEmpty } else { false }
        return await confirmations.confirm(path: path, generation: generation, after: isEmpty ? emptyReadDelay : .zero)
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
