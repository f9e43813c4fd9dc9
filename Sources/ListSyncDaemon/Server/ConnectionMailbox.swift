import ListSyncProtocol
import NIOCore
import Synchronization

/// A thread-safe way to reach one connection's ``ConnectionHandler`` from outside its event loop:
/// feeds wake it, the server sends it heartbeats and goodbyes, and the ``ClientBufferBudget``
/// reads what the connection holds and cuts it off.
///
/// The connection's pipeline reports, on its event loop, the bytes it buffers privately (an
/// unfinished request line, replies not yet written) and since when; the mailbox charges them to
/// the budget, and releases them all when the connection closes.
final class ConnectionMailbox: WatchFeedSubscriber {
    /// Emptied when the handler leaves its pipeline, which breaks the handler ↔ mailbox cycle.
    private let handler: NIOLoopBoundBox<ConnectionHandler?>
    /// Whether a wake-up is already queued on the event loop; many publications in a row cost one.
    private let wakeQueued = Atomic<Bool>(false)
    private let budget: ClientBufferBudget?
    /// The bytes of the unfinished request line buffered, and of replies not yet written.
    private let inboundBytes = Atomic<Int>(0)
    private let outboundBytes = Atomic<Int>(0)
    /// Since when (uptime, ns) a request line is unfinished, and the channel unwritable; 0: not.
    private let lineStartedAt = Atomic<UInt64>(0)
    private let unwritableSince = Atomic<UInt64>(0)
    /// The snapshots the connection's subscriptions are sending.
    private let snapshots = Mutex<[EncodedSnapshot]>([])
    /// Set once the budget cut the connection off.
    private let cutOffFlag = Atomic<Bool>(false)
    /// Set once the connection closed: nothing is charged any more.
    private let released = Atomic<Bool>(false)

    /// The credentials of the connected process, when the server checked them; a reload checks
    /// them again (``revoke()``).
    let peer: PeerAccess.Peer?

    /// A mailbox for `peer`'s connection served on `eventLoop` whose buffers count against
    /// `budget`; its handler attaches itself when added.
    init(eventLoop: any EventLoop, budget: ClientBufferBudget?, peer: PeerAccess.Peer? = nil) {
        self.handler = NIOLoopBoundBox(nil, eventLoop: eventLoop)
        self.budget = budget
        self.peer = peer
    }

    var eventLoop: any EventLoop { self.handler.eventLoop }

    func feedDidChange() {
        guard self.wakeQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        let woken = ContinuousClock.now
        self.eventLoop.execute {
            self.wakeQueued.store(false, ordering: .releasing)
            self.handler.value?.pump(wokenAt: woken)
        }
    }

    /// Writes `heartbeat` (one buffer shared by all connections) if the connection is open and keeps up.
    func sendHeartbeat(_ heartbeat: ByteBuffer) {
        self.eventLoop.execute {
            self.handler.value?.sendHeartbeat(heartbeat)
        }
    }

    /// Sends `goodbye` and closes the connection; the future completes once it is closed.
    func sayGoodbye(_ reason: GoodbyeReason) -> EventLoopFuture<Void> {
        self.eventLoop.flatSubmit {
            self.handler.value?.sayGoodbye(reason) ?? self.eventLoop.makeSucceededVoidFuture()
        }
    }

    /// The peer is no longer allowed to connect (a reload changed `allow_uids` or
    /// `allow_groups`): sends `error` `not_permitted` and closes the connection.
    func revoke() {
        self.eventLoop.execute {
            self.handler.value?.revoke()
        }
    }

    // MARK: - Buffers

    /// The bytes the connection holds of the budget.
    var heldBytes: Int {
        self.inboundBytes.load(ordering: .relaxed) + self.outboundBytes.load(ordering: .relaxed)
    }

    /// Since when (uptime, ns) the connection has held buffered data — an unfinished line, or
    /// output the client does not read — whichever is older; `nil` when it holds none.
    var heldSince: UInt64? {
        let instants = [self.lineStartedAt.load(ordering: .relaxed), self.unwritableSince.load(ordering: .relaxed)].filter { $0 != 0 }
        return instants.min()
    }

    /// The bytes of the snapshots the connection is sending of versions that are no longer
    /// current: memory that cutting it off may release (unless others still read them).
    var staleSnapshotBytes: Int {
        self.snapshots.withLock { $0.filter(\.isStale).reduce(0) { $0 + $1.bytes } }
    }

    /// The connection's subscriptions are sending `snapshots` now. Called on the event loop.
    func noteSnapshotsBeingSent(_ snapshots: [EncodedSnapshot]) {
        self.snapshots.withLock { $0 = snapshots }
    }

    /// Whether the budget cut the connection off.
    var isCutOff: Bool {
        self.cutOffFlag.load(ordering: .relaxed)
    }

    /// The line decoder holds `bytes` of an unfinished line now (0 when every line read is
    /// complete). Called on the event loop; tells the handler when a line starts and ends, for
    /// the unfinished-line limit.
    func noteUnfinishedLine(bytes: Int) {
        let old = self.inboundBytes.exchange(bytes, ordering: .relaxed)
        guard old != bytes, !self.released.load(ordering: .relaxed) else { return }
        self.charge(bytes - old)
        if old == 0 {
            self.lineStartedAt.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
            self.handler.value?.unfinishedLineStarted()
        } else if bytes == 0 {
            self.lineStartedAt.store(0, ordering: .relaxed)
            self.handler.value?.unfinishedLineEnded()
        }
    }

    /// `bytes` more (or, negative, fewer) of replies are waiting to be written.
    func noteReplyBytes(_ bytes: Int) {
        self.outboundBytes.wrappingAdd(bytes, ordering: .relaxed)
        guard !self.released.load(ordering: .relaxed) else { return }
        self.charge(bytes)
    }

    /// The channel became writable or unwritable.
    func noteWritability(_ isWritable: Bool) {
        self.unwritableSince.store(isWritable ? 0 : NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// The connection closed: returns what it holds to the budget and charges nothing more.
    func releaseBuffers() {
        guard !self.released.exchange(true, ordering: .relaxed) else { return }
        self.budget?.release(self.heldBytes)
        self.snapshots.withLock { $0 = [] }
    }

    private func charge(_ bytes: Int) {
        if bytes > 0 {
            self.budget?.charge(bytes)
        } else if bytes < 0 {
            self.budget?.release(-bytes)
        }
    }

    /// Cuts the connection off for the budget: `goodbye` `slow_consumer` if it fits, and close.
    func cutOff() {
        guard !self.cutOffFlag.exchange(true, ordering: .relaxed) else { return }
        self.eventLoop.execute {
            self.handler.value?.cutOff()
        }
    }

    /// Routes to `handler` from now on; called on the event loop when it joins the pipeline.
    func attach(_ handler: ConnectionHandler) {
        self.handler.value = handler
    }

    /// Forgets the handler; called on the event loop when it leaves the pipeline.
    func detach() {
        self.handler.value = nil
    }
}
