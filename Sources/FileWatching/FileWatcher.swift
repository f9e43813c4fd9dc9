import Logging
import Synchronization

/// Watches files through inotify and announces each one once it has settled after a change.
///
/// Each watched file's *parent directory* is watched and events are routed by (directory, entry
/// name), so every way of saving is seen: writes in place, write temp + rename over, `sed -i`,
/// vim's backup dance, `cp` over, delete + recreate. When the directory itself goes away, the
/// nearest existing ancestor is watched until it returns. A file is announced only after it has
/// been quiet for a settle delay, or a maximum delay if it keeps changing, and only while no
/// writer holds it (an open followed by `IN_MODIFY`, not yet by `IN_CLOSE_WRITE`: readers such
/// as `tail -f` never count, see ``WriterState``). A writer that holds it longer than a save
/// takes is reported with ``FileWatchEvent/writing(path:since:)`` instead. Then the consumer reads it with
/// ``FileSnapshot/read(atPath:maximumAttempts:)`` and confirms with the event's
/// ``CompletenessCheck`` that nobody was writing it during the read, so a half-written file is
/// never taken for a version. On inotify queue overflow every file is re-announced — one that
/// changed meanwhile once its `stat` stays the same for the writer bound — and a slow `stat`
/// reconciliation catches anything inotify could not report.
///
/// ```swift
/// let watcher = FileWatcher(configuration: .init(), logger: logger)
/// try watcher.watch("/srv/data/products.csv")
/// async let running: Void = watcher.run()
/// for await event in watcher.events {
///     switch event {
///     case .changed(let path, let check):
///         let read = check.beginRead()
///         let snapshot = try FileSnapshot.read(atPath: path)
///         read.end(with: snapshot)
///         guard await read.confirm() else { continue } // written meanwhile: announced again
///         // …
///     case .writing(let path, let since): // a writer holds it: not a version yet
///     case .changedWhileWriting(let path, _): // only for files published while written (logs)
///     case .missing(let path): // …
///     }
/// }
/// ```
///
/// `watch` and `unwatch` may be called from anywhere, before or while ``run()`` runs (e.g. on a
/// configuration reload). All libinotifytools calls happen on one process-wide thread
/// (``InotifyThread``); the watcher's own state lives in ``run()``'s task. Idle, it costs one
/// wake-up per second on that thread and one `stat` per file per reconciliation interval.
public final class FileWatcher: Sendable {
    /// What drives the watcher's task, in arrival order.
    enum Input: Sendable {
        case watch(WatchedPath)
        case unwatch(WatchedPath)
        case inotify(InotifyEvent)
        /// A settle deadline armed for this instant has come.
        case deadline(ContinuousClock.Instant)
        case reconcile
        /// The inotify thread has handed over every event queued before read `id`
        /// (``ReadConfirmations``) began; `inSync` is `false` when some were refused (an overflow
        /// is owed).
        case readStarted(id: Int, inSync: Bool)
        /// The same for the moment read `id` ended: it can be judged.
        case readEnded(id: Int, inSync: Bool)
    }

    private enum State {
        /// Created; ``run()`` has not started. Watch requests wait in `inputs`.
        case initialized(inputs: AsyncStream<Input>)
        /// ``run()`` owns the inputs.
        case running
        /// ``run()`` returned; ``events`` is finished.
        case finished
    }

    /// The settle delays and intervals this watcher was created with.
    public let configuration: Configuration

    /// Announcements for every watched path, in the order they were made. One consumer only;
    /// finishes when ``run()`` returns. Unbounded, but a file is announced at most once per
    /// settle, so it grows only as fast as files settle.
    public let events: AsyncStream<FileWatchEvent>

    private let eventContinuation: AsyncStream<FileWatchEvent>.Continuation
    private let inputContinuation: AsyncStream<Input>.Continuation
    private let state: Mutex<State>
    private let confirmations: ReadConfirmations
    /// Inotify events handed over but not yet processed; capped by
    /// ``Configuration/maximumPendingEvents``.
    private let pendingEvents = Atomic<Int>(0)
    /// Called on the inotify thread for each overflow taken (events lost: every file is
    /// checked again), for the daemon's metrics.
    private let onQueueOverflow: @Sendable () -> Void
    private let logger: Logger

    /// - Parameter onQueueOverflow: Called, on the inotify thread, each time events were lost
    ///   (the kernel's queue or this watcher's overflowed); it must not block.
    public init(configuration: Configuration = Configuration(), logger: Logger, onQueueOverflow: @escaping @Sendable () -> Void = {}) {
        self.configuration = configuration
        self.onQueueOverflow = onQueueOverflow
        self.logger = logger
        (events, eventContinuation) = AsyncStream.makeStream()
        let (inputs, inputContinuation) = AsyncStream<Input>.makeStream()
        self.inputContinuation = inputContinuation
        self.confirmations = ReadConfirmations(inputs: inputContinuation)
        self.state = Mutex(.initialized(inputs: inputs))
    }

    /// Starts watching the file at `path` (absolute). It need not exist, nor its directory.
    ///
    /// Its current status is announced shortly after — `.changed` or `.missing` — even when the
    /// path is already watched, so each subscriber learns it; watches of one path are counted.
    ///
    /// - Returns: The normalised path, which the path's events carry.
    /// - Throws: ``FileWatcherError/invalidPath(_:reason:)``, or ``FileWatcherError/finished``.
    @discardableResult
    public func watch(_ path: String) throws(FileWatcherError) -> String {
        let watchedPath = try WatchedPath(path)
        try submit(.watch(watchedPath))
        return watchedPath.path
    }

    /// Drops one watch of `path`; after the last one, nothing more is announced for it.
    ///
    /// - Throws: ``FileWatcherError/invalidPath(_:reason:)``, or ``FileWatcherError/finished``.
    public func unwatch(_ path: String) throws(FileWatcherError) {
        try submit(.unwatch(WatchedPath(path)))
    }

    /// Whether the process's inotify thread is alive: it went round its loop within `interval`
    /// (it does at least once a second, idle or not). `false` before any watcher started it.
    /// The daemon pings the systemd watchdog only while this holds, so a hung watcher thread gets
    /// the service restarted.
    public static func isInotifyThreadResponsive(within interval: Duration = .seconds(5)) -> Bool {
        InotifyThread.isResponsive(within: interval)
    }

    private func submit(_ input: Input) throws(FileWatcherError) {
        if case .terminated = inputContinuation.yield(input) {
            throw .finished
        }
    }

    /// Takes an event from the inotify thread. Refuses it — and the thread then owes this watcher
    /// an overflow, making it re-check everything — when ``Configuration/maximumPendingEvents``
    /// events already wait, so a stalled watcher never queues without bound.
    func ingest(_ event: InotifyEvent) -> Bool {
        guard pendingEvents.wrappingAdd(1, ordering: .relaxed).newValue <= configuration.maximumPendingEvents else {
            pendingEvents.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        if case .terminated = inputContinuation.yield(.inotify(event)) {
            pendingEvents.wrappingSubtract(1, ordering: .relaxed)
        } else if event.mask.contains(.queueOverflow) {
            onQueueOverflow()
        }
        return true
    }

    /// Watches until the calling task is cancelled, then finishes ``events`` and returns.
    ///
    /// - Throws: ``FileWatcherError/alreadyRunning`` on a second call, or an error from starting
    ///   the inotify thread (then ``events`` finishes at once).
    public func run() async throws(FileWatcherError) {
        let inputs = try state.withLock { state throws(FileWatcherError) -> AsyncStream<Input> in
            switch state {
            case .initialized(let inputs):
                state = .running
                return inputs
            case .running, .finished:
                throw .alreadyRunning
            }
        }
        defer {
            inputContinuation.finish()
            confirmations.finish()
            eventContinuation.finish()
            state.withLock { $0 = .finished }
        }
        let client = try await InotifyThread.shared(logger: logger).register { [self] event in
            ingest(event)
        }
        defer { client.unregister() }
        confirmations.attach(client)
        await withDiscardingTaskGroup { group in
            group.addTask { [inputContinuation, configuration] in
                while (try? await Task.sleep(for: configuration.reconciliationInterval)) != nil {
                    inputContinuation.yield(.reconcile)
                }
            }
            var registry = WatchRegistry(
                configuration: configuration, inotify: client, output: eventContinuation, confirmations: confirmations, logger: logger)
            // Instants with a sleeping task that will deliver `.deadline`; a new sleeper is only
            // needed for a deadline earlier than all of them.
            var armed: [ContinuousClock.Instant] = []
            for await input in inputs {
                let now = ContinuousClock.now
                switch input {
                case .watch(let path):
                    await registry.watch(path, now: now)
                case .unwatch(let path):
                    registry.unwatch(path)
                case .inotify(let event):
                    pendingEvents.wrappingSubtract(1, ordering: .relaxed)
                    await registry.handle(event, now: now)
                case .deadline(let instant):
                    armed.removeAll { $0 == instant }
                    registry.announceDue(now: now)
                case .reconcile:
                    await registry.reconcile(now: now)
                case .readStarted(let id, let inSync):
                    if let path = confirmations.pathStarting(id) {
                        confirmations.noteStart(id, completeAt: inSync ? registry.readStart(of: path) : nil)
                    }
                case .readEnded(let id, let inSync):
                    // The start is always noted first (its barrier was placed first); a read
                    // that is not known any more was abandoned, and `resolve` ignores it.
                    let read = confirmations.judging(id)
                    let complete = read.map {
                        registry.confirm($0.path, announcedAt: $0.announcedGeneration, readStartedAt: inSync ? $0.completeAt : nil, now: now)
                    }
                    confirmations.resolve(id, with: complete ?? false)
                }
                // A file can be due at once: a writer closed a file that kept changing for longer
                // than the maximum, or a failed check put a file back to its earlier start.
                if let next = registry.earliestDeadline, next <= now {
                    registry.announceDue(now: now)
                }
                registry._checkInvariants()
                if let next = registry.earliestDeadline, armed.allSatisfy({ next < $0 }) {
                    armed.append(next)
                    group.addTask { [inputContinuation] in
                        try? await Task.sleep(until: next, clock: .continuous)
                        inputContinuation.yield(.deadline(next))
                    }
                }
            }
            group.cancelAll()
        }
    }
}
