import Synchronization

/// The reads of announced files (``CheckedRead``) a ``FileWatcher`` has not judged yet.
///
/// A read is bracketed by two barriers through the inotify thread, placed by the reading thread
/// right before it opens the file and right after the read returns. When the first has passed —
/// every event queued before it handed over — the watcher's task notes what it knew of the file
/// then (``FileWatcher/Input/readStarted(id:inSync:)``); when the second has passed, it judges
/// the read (``FileWatcher/Input/readEnded(id:inSync:)``) and answers with ``resolve(_:with:)``.
/// The barriers come out of the queue in the order they were placed, so the start is always
/// noted first. When the watcher stops, ``finish()`` answers every read `false`, so no caller
/// waits forever; a read its caller drops (``abandon(_:)``) leaves nothing behind.
final class ReadConfirmations: Sendable {
    /// Where a read is in its judging.
    private enum Progress {
        /// The start barrier is on its way.
        case starting
        /// The start barrier passed: the file's generation and open count then, if no writer
        /// held it and no event was lost; `nil` otherwise (the read cannot be of a complete
        /// version).
        case started(completeAt: WatchRegistry.ReadStart?)
        /// The end barrier passed and the watcher judged the read.
        case answered(Bool)
    }

    private struct Read {
        /// The watched path, as the watcher normalised it.
        let path: String
        /// The file's generation at the announcement that prompted the read.
        let announcedGeneration: UInt64
        /// Whether the start barrier could not be placed at once (every marker was in flight): it
        /// went in later than the read began, so what the watcher knew then says nothing about
        /// the start, and the read is refused.
        var isStartLate: Bool
        var progress = Progress.starting
        /// The caller of ``answer(_:)``, once it waits.
        var waiter: CheckedContinuation<Bool, Never>?
    }

    /// What the watcher needs to judge a read whose end barrier passed.
    struct Judged {
        let path: String
        let announcedGeneration: UInt64
        /// The file's generation and open count when the read began, if it was complete then.
        let completeAt: WatchRegistry.ReadStart?
    }

    private struct State {
        var nextID = 0
        var reads: [Int: Read] = [:]
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

    /// Places the start barrier of a read of `path`, announced at `generation`. Returns the read's
    /// id, or `nil` when the watcher has stopped (the read cannot be confirmed).
    func begin(path: String, generation: UInt64) -> Int? {
        // Placed under the lock, so that the start is noted only after `isStartLate` is known.
        state.withLock { state -> Int? in
            guard !state.isFinished, let client = state.client else { return nil }
            let id = state.nextID
            state.nextID += 1
            let placed = client.barrier { [inputs] inSync in
                inputs.yield(.readStarted(id: id, inSync: inSync))
            }
            state.reads[id] = Read(path: path, announcedGeneration: generation, isStartLate: !placed)
            return id
        }
    }

    /// Places the end barrier of read `id`.
    func end(_ id: Int) {
        guard let client = state.withLock({ $0.client }) else { return }
        client.barrier { [inputs] inSync in
            inputs.yield(.readEnded(id: id, inSync: inSync))
        }
    }

    /// The path read `id` is of, while it waits for its start barrier.
    func pathStarting(_ id: Int) -> String? {
        state.withLock { state in
            guard let read = state.reads[id], case .starting = read.progress else { return nil }
            return read.path
        }
    }

    /// Notes what the watcher knew of the file when read `id` began.
    func noteStart(_ id: Int, completeAt start: WatchRegistry.ReadStart?) {
        state.withLock { state in
            guard let read = state.reads[id] else { return }
            state.reads[id]?.progress = .started(completeAt: read.isStartLate ? nil : start)
        }
    }

    /// What judging read `id` needs, once its start was noted.
    func judging(_ id: Int) -> Judged? {
        state.withLock { state in
            guard let read = state.reads[id], case .started(let completeAt) = read.progress else { return nil }
            return Judged(path: read.path, announcedGeneration: read.announcedGeneration, completeAt: completeAt)
        }
    }

    /// Answers read `id`: at once if its caller waits, or when it asks.
    func resolve(_ id: Int, with answer: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let read = state.reads[id] else { return nil }
            guard let waiter = read.waiter else {
                state.reads[id]?.progress = .answered(answer)
                return nil
            }
            state.reads[id] = nil
            return waiter
        }
        waiter?.resume(returning: answer)
    }

    /// Waits for the answer to read `id`: whether it saw a complete version.
    func answer(_ id: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let answer = state.withLock { state -> Bool? in
                guard !state.isFinished, let read = state.reads[id] else { return false }
                if case .answered(let answer) = read.progress {
                    state.reads[id] = nil
                    return answer
                }
                state.reads[id]?.waiter = continuation
                return nil
            }
            if let answer {
                continuation.resume(returning: answer)
            }
        }
    }

    /// Forgets read `id`, whose caller will not ask for its answer.
    func abandon(_ id: Int) {
        let waiter = state.withLock { $0.reads.removeValue(forKey: id)?.waiter }
        assert(waiter == nil, "a read was abandoned while its caller waited for it")
    }

    /// Answers every waiting read `false`, and every later one at once.
    func finish() {
        let waiters = state.withLock { state in
            state.isFinished = true
            defer { state.reads = [:] }
            return state.reads.values.compactMap(\.waiter)
        }
        for waiter in waiters {
            waiter.resume(returning: false)
        }
    }
}
