import Synchronization

/// One read of an announced file, between the marks ``CompletenessCheck/beginRead()`` and
/// ``end(with:)`` put in the kernel's inotify queue; ``confirm()`` says whether it saw a complete
/// version.
///
/// ```swift
/// let read = check.beginRead()
/// let snapshot = try FileSnapshot.read(atPath: path)
/// read.end(with: snapshot)          // on the same thread, right away
/// guard await read.confirm() else { … } // written meanwhile: announced again
/// ```
///
/// Dropping it without asking (the read failed) is fine.
public final class CheckedRead: Sendable {
    private enum End {
        /// The read has not returned.
        case reading
        /// The end mark is placed.
        case marked
        /// The read found the file empty and the end mark waits this long (see
        /// ``FileWatcher/Configuration/emptyReadConfirmationDelay``).
        case markAfter(Duration)
    }

    private let confirmations: ReadConfirmations
    /// `nil` when the watcher had stopped: the read is refused.
    private let id: Int?
    private let emptyReadDelay: Duration
    private let end = Mutex(End.reading)

    init(confirmations: ReadConfirmations, id: Int?, emptyReadDelay: Duration) {
        self.confirmations = confirmations
        self.id = id
        self.emptyReadDelay = emptyReadDelay
    }

    deinit {
        if let id {
            confirmations.abandon(id)
        }
    }

    /// Call on the reading thread right after the read returned `read`: marks its end — or, for
    /// an empty read, leaves the mark to ``confirm()`` after a delay, since a truncation in place
    /// is visible before the kernel reports it.
    public func end(with read: FileSnapshot) {
        let isEmpty = if case .present(let bytes, _) = read { bytes.isEmpty } else { false }
        let delay = isEmpty ? emptyReadDelay : .zero
        end.withLock { $0 = delay > .zero ? .markAfter(delay) : .marked }
        if delay == .zero, let id {
            confirmations.end(id)
        }
    }

    /// Whether no writer held the file when the read began, nothing happened to it until it
    /// ended and nobody who opened it meanwhile still holds it: `true` means the read saw a
    /// complete version. `false` also when the watcher stopped
    /// or lost events (it then re-checks every file). Call once, after ``end(with:)``.
    public func confirm() async -> Bool {
        guard let id else { return false }
        switch end.withLock({ $0 }) {
        case .reading:
            assertionFailure("a read was confirmed before it ended")
            return false
        case .marked:
            break
        case .markAfter(let delay):
            try? await Task.sleep(for: delay)
            confirmations.end(id)
        }
        return await confirmations.answer(id)
    }
}
