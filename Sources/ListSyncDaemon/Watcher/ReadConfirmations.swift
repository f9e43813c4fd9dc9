import Synchronization

/// The ``CompletenessCheck/confirm(_:)`` calls a ``FileWatcher`` has not answered yet.
///
/// A call waits its delay (``FileWatcher/Configuration/emptyReadConfirmationDelay`` for some
/// empty reads), then parks here and puts a barrier through the inotify thread; once every event
/// queued before it has been handed over, the barrier sends
/// ``FileWatcher/Input/barrierPassed(id:path:generation:inSync:)`` to the watcher's task, which
/// answers with ``resolve(_:with:)``. When the watcher stops, ``finish()`` answers every parked
/// call `false`, so no caller waits forever.
final class ReadConfirmations: Sendable {
    private struct State {
        var nextID = 0
        var waiting: [Int: CheckedContinuation<Bool, Never>] = [:]
        var isFinished = false
        /// The watcher's inotify client, once ``FileWatcher/run()`` has registered it.
        var client: InotifyThread.Client?
    }

    private let inputs: AsyncStream<FileWatcher.Input>.Continuation
    private let state = Mutex(State())

    init(inputs: AsyncStream<FileWatcher.Input>.Continuation) {
        self.inputs = inputs
    }

    /// Puts barriers through `client` from now on.
    func attach(_ client: InotifyThread.Client) {
        state.withLock { $0.client = client }
    }

    /// Waits `delay`, then until the watcher says whether `path` is unchanged since `generation`.
    func confirm(path: String, generation: UInt64, after delay: Duration) async -> Bool {
        if delay > .zero {
            try? await Task.sleep(for: delay)
        }
        return await withCheckedContinuation { continuation in
            let parked = state.withLock { state -> (Int, InotifyThread.Client)? in
                guard !state.isFinished, let client = state.client else { return nil }
                defer { state.nextID += 1 }
                state.waiting[state.nextID] = continuation
                return (state.nextID, client)
            }
            guard let (id, client) = parked else {
                continuation.resume(returning: false)
                return
            }
            // If the watcher has stopped meanwhile, `finish()` answers.
            client.barrier { [inputs] inSync in
                inputs.yield(.barrierPassed(id: id, path: path, generation: generation, inSync: inSync))
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
