import CInotifyTools
import DurableFiles
import Glibc
import Logging
import Synchronization

/// The one thread that talks to libinotifytools.
///
/// libinotifytools keeps its inotify descriptor, its watch tables and its event buffer in
/// process-global statics and is not thread-safe, so every call into it — and every raw
/// `inotify_add_watch`/`inotify_rm_watch` on its descriptor — happens on this thread.
/// There is one per process: the first ``shared(logger:)`` starts it and it lives as long as the
/// process (like an event loop group). Watchers are *clients*: they register an event handler
/// and add and remove watches; the thread reference-counts kernel watches across clients,
/// because the kernel hands out one descriptor per inode and instance.
///
/// The thread blocks in `inotifytools_next_events(1, 1)`: with a 1 s timeout because
/// `next_event(0)` blocks forever (0 becomes -1), and one event at a time because `num_events > 1`
/// spins on `FIONREAD`. Requests from other threads go to a mailbox; the poster wakes the thread
/// by writing a byte to a pipe the thread watches through inotify itself (a write to a pipe raises
/// `IN_MODIFY` on it), so requests are served at once without signals or polling.
///
/// Barriers (``Client/barrier(reply:)``) do not go through the mailbox: the asking thread writes
/// its marker itself (``InotifyBarriers``), so the barrier sits in the kernel's queue exactly
/// where it was asked for.
///
/// Watches are added with `inotify_add_watch` on the library's descriptor rather than
/// `inotifytools_watch_file`, which does not return the descriptor and whose tables go stale after
/// `IN_IGNORED` (`inotifytools_wd_from_filename` keeps answering the dead descriptor after a
/// re-watch — measured with 3.22.6). Clients keep their own descriptor → directory tables.
final class InotifyThread: Sendable {
    /// Identifies a registered client in requests.
    typealias ClientID = Int

    /// Delivers one event to a client. Returns `false` when the client cannot take it now
    /// (its buffer is full); the thread then owes the client an ``InotifyEvent/overflow``,
    /// which it keeps offering until the client accepts it.
    typealias EventHandler = @Sendable (InotifyEvent) -> Bool

    /// What a client asks the thread to do.
    enum Request: Sendable {
        case register(ClientID, EventHandler)
        case unregister(ClientID)
        case addWatch(ClientID, directory: String, reply: @Sendable (Result<WatchDescriptor, SystemCallError>) -> Void)
        case removeWatch(ClientID, WatchDescriptor)
    }

    private let mailbox = Mutex<[Request]>([])
    private let wakeDescriptor: Int32
    /// The barriers in flight, placed by any thread and answered by the inotify thread.
    private let barriers: Mutex<InotifyBarriers>
    private let nextClientID = Atomic<Int>(0)
    /// When the thread last went round its loop (`CLOCK_MONOTONIC`, nanoseconds): at least once a
    /// second while it is alive, which is what the systemd watchdog checks.
    private let lastTurn = Atomic<UInt64>(0)

    /// Only the thread itself creates its handle, once libinotifytools is initialised.
    init(wakeDescriptor: Int32, markers: [InotifyBarriers.Marker]) {
        self.wakeDescriptor = wakeDescriptor
        self.barriers = Mutex(InotifyBarriers(markers: markers))
    }

    /// Registers `handler` for the events of the watches the new client adds, and for overflows.
    func register(handler: @escaping EventHandler) -> Client {
        let id = nextClientID.wrappingAdd(1, ordering: .relaxed).newValue
        post(.register(id, handler))
        return Client(thread: self, id: id)
    }

    /// Queues `request` for the thread and wakes it if the mailbox was empty (a non-empty
    /// mailbox already has a wake-up pending, and the thread takes the whole mailbox at once).
    func post(_ request: Request) {
        let wasEmpty = mailbox.withLock { requests in
            defer { requests.append(request) }
            return requests.isEmpty
        }
        if wasEmpty {
            var byte: UInt8 = 1
            // The pipe is non-blocking: when it is full, a wake-up is pending anyway.
            _ = write(wakeDescriptor, &byte, 1)
        }
    }

    /// Places `barrier` in the kernel's queue now, from the calling thread: writes an idle marker,
    /// or leaves the barrier to the next marker that arrives. Returns whether it was placed now.
    @discardableResult
    func place(_ barrier: InotifyBarriers.Barrier) -> Bool {
        barriers.withLock { barriers in
            guard let marker = barriers.add(barrier) else { return false }
            Self.writeMarker(marker)
            return true
        }
    }

    /// The inotify thread read the event of the marker watched by `watch`: returns the barriers it
    /// answers, after writing the marker again for those that waited. Called on the thread only.
    func markerArrived(_ watch: WatchDescriptor) -> [InotifyBarriers.Barrier] {
        barriers.withLock { barriers in
            let (answered, writeAgain) = barriers.markerArrived(watch)
            if let writeAgain {
                Self.writeMarker(writeAgain)
            }
            return answered
        }
    }

    /// One byte on a marker pipe; only one is ever unread on each, so the pipe always has room.
    private static func writeMarker(_ marker: InotifyBarriers.Marker) {
        var byte: UInt8 = 1
        _ = Glibc.write(marker.writeDescriptor, &byte, 1)
    }

    /// Records that the thread went round its loop. Called on the thread only.
    func noteTurn() {
        self.lastTurn.store(Self.monotonicNanoseconds(), ordering: .relaxed)
    }

    /// Whether the thread went round its loop within `interval`.
    func hasTurned(within interval: Duration) -> Bool {
        let (seconds, attoseconds) = interval.components
        let limit = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        return Self.monotonicNanoseconds() &- self.lastTurn.load(ordering: .relaxed) <= limit
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Takes every queued request, in posting order. Called on the thread only.
    func takeRequests() -> [Request] {
        mailbox.withLock { requests in
            defer { requests.removeAll(keepingCapacity: true) }
            return requests
        }
    }
}

extension InotifyThread {
    /// A registered client's handle: adds and removes its watches and unregisters it.
    struct Client: Sendable {
        let thread: InotifyThread
        let id: ClientID

        /// Watches `directory` for ``InotifyEvent/Mask/directoryWatch``; the returned descriptor
        /// is shared with other watches of the same inode (by this or other clients).
        func addWatch(directory: String) async -> Result<WatchDescriptor, SystemCallError> {
            await withCheckedContinuation { continuation in
                thread.post(.addWatch(id, directory: directory, reply: { continuation.resume(returning: $0) }))
            }
        }

        /// Drops one use of `descriptor`; the kernel watch goes when no client uses it any more.
        /// Unknown descriptors (already removed by `IN_IGNORED`) are ignored.
        func removeWatch(_ descriptor: WatchDescriptor) {
            thread.post(.removeWatch(id, descriptor))
        }

        /// Calls `reply` on the inotify thread once every event queued in the kernel before this
        /// call has been handed to the client's handler — `true` — or refused and owed as an
        /// overflow — `false`. A watcher uses it to know that it has seen everything that happened
        /// to its files up to the moment of the call: the barrier is placed before this returns,
        /// on the calling thread. Returns `false` when every marker was in flight: the barrier then
        /// goes in later, when one arrives, and covers more than was asked.
        @discardableResult
        func barrier(reply: @escaping @Sendable (Bool) -> Void) -> Bool {
            thread.place((id, reply))
        }

        /// Removes all of the client's watches and stops delivering events to it.
        func unregister() {
            thread.post(.unregister(id))
        }
    }
}

extension InotifyThread {
    private enum SharedState {
        /// No thread yet (or the last start failed; the next caller retries).
        case stopped
        /// A thread is initialising libinotifytools; these callers wait for the outcome.
        case starting(waiters: [CheckedContinuation<Result<InotifyThread, FileWatcherError>, Never>])
        /// The thread is running for the rest of the process's life.
        case running(InotifyThread)
    }

    private static let sharedState = Mutex<SharedState>(.stopped)

    /// The process's inotify thread, started on first use.
    ///
    /// - Throws: ``FileWatcherError/inotifyUnavailable(_:)``,
    ///   ``FileWatcherError/inotifyDescriptorTooHigh(descriptor:limit:)`` or
    ///   ``FileWatcherError/inotifyThreadFailed(_:)`` when it cannot start; a later call tries again.
    static func shared(logger: Logger) async throws(FileWatcherError) -> InotifyThread {
        let result = await withCheckedContinuation { continuation in
            enum Next { case resume(InotifyThread), wait, start }
            let next = sharedState.withLock { state -> Next in
                switch state {
                case .running(let thread):
                    return .resume(thread)
                case .starting(var waiters):
                    waiters.append(continuation)
                    state = .starting(waiters: waiters)
                    return .wait
                case .stopped:
                    state = .starting(waiters: [continuation])
                    return .start
                }
            }
            switch next {
            case .resume(let thread):
                continuation.resume(returning: .success(thread))
            case .wait:
                break
            case .start:
                if let error = InotifyLoop.spawn(logger: logger, started: finishStarting) {
                    finishStarting(.failure(.inotifyThreadFailed(error)))
                }
            }
        }
        return try result.get()
    }

    /// Whether the process's inotify thread is running and went round its loop within `interval`;
    /// `false` before it started.
    static func isResponsive(within interval: Duration) -> Bool {
        let thread = sharedState.withLock { state -> InotifyThread? in
            guard case .running(let thread) = state else { return nil }
            return thread
        }
        return thread?.hasTurned(within: interval) ?? false
    }

    /// Publishes the outcome of a start to everyone waiting for it.
    private static func finishStarting(_ outcome: Result<InotifyThread, FileWatcherError>) {
        let waiters = sharedState.withLock { state in
            guard case .starting(let waiters) = state else {
                preconditionFailure("the inotify thread finished starting while \(state)")
            }
            switch outcome {
            case .success(let thread): state = .running(thread)
            case .failure: state = .stopped
            }
            return waiters
        }
        for waiter in waiters {
            waiter.resume(returning: outcome)
        }
    }
}
