import Synchronization

/// The ``CompletenessCheck/confirm()`` calls a ``FileWatcher`` has not answered yet.
///
/// A call waits ``FileWatcher/Configuration/confirmationDelay``, then parks here and sends
/// ``FileWatcher/Input/confirm(id:path:generation:)`` to the watcher's task, which puts a barrier through the inotify thread and answers with
/// ``resolve(_:with:)`` once the barrier has passed. When the watcher stops, ``finish()`` answers
/// every parked call `false`, so no caller waits forever.
final class ReadConfirmations: Sendable {
    private struct State {
        var nextID = 0
        var waiting: [Int: CheckedContinuation<Bool, Never>] = [:]
        var isFinished = false
    }

    private let inputs: AsyncStream<FileWatcher.Input>.Continuation
    private let delay: Duration
    private let state = Mutex(State())

    init(inputs: AsyncStream<FileWatcher.Input>.Continuation, delay: Duration) {
        self.inputs = inputs
        self.delay = delay
    }

    /// Waits until the watcher says whether `path` is unchanged since `generation`.
    func confirm(path: String, generation: UInt64) async -> Bool {
        try? await Task.sleep(for: delay)
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state -> Int? in
                guard !state.isFinished else { return nil }
                defer { state.nextID += 1 }
                state.waiting[state.nextID] = continuation
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: false)
                return
            }
            if case .terminated = inputs.yield(.confirm(id: id, path: path, generation: generation)) {
                resolve(id, with: false)
            }
        }
    }

    /// Answers the call `id`, if it still waits.
    func resolve(_ id: Int, with answer: Bool) {
        state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(returning: answer)
    }

    /// Answers every waiting call `false` and every later one at once.
    func finish() {
        let waiting = state.withLock { state in
            state.isFinished = true
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for continuation in waiting {
            continuation.resume(returning: false)
        }
    }
}
