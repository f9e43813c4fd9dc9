import ListSyncProtocol
import NIOCore
import Synchronization

/// A thread-safe way to reach one connection's ``ConnectionHandler`` from outside its event loop:
/// feeds wake it, the server sends it heartbeats and goodbyes.
final class ConnectionHandle: WatchFeedSubscriber {
    /// Emptied when the handler leaves its pipeline, which breaks the handler ↔ handle cycle.
    private let handler: NIOLoopBoundBox<ConnectionHandler?>
    /// Whether a wake-up is already queued on the event loop; many publications in a row cost one.
    private let wakeQueued = Atomic<Bool>(false)

    /// A handle for a connection served on `eventLoop`; its handler attaches itself when added.
    init(eventLoop: any EventLoop) {
        self.handler = NIOLoopBoundBox(nil, eventLoop: eventLoop)
    }

    var eventLoop: any EventLoop { self.handler.eventLoop }

    func feedDidChange() {
        guard self.wakeQueued.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        self.eventLoop.execute {
            self.wakeQueued.store(false, ordering: .releasing)
            self.handler.value?.pump()
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

    /// Routes to `handler` from now on; called on the event loop when it joins the pipeline.
    func attach(_ handler: ConnectionHandler) {
        self.handler.value = handler
    }

    /// Forgets the handler; called on the event loop when it leaves the pipeline.
    func detach() {
        self.handler.value = nil
    }
}

/// The open connections, so heartbeats, goodbyes and the status line can reach them all.
final class ConnectionRegistry: Sendable {
    private let connections = Mutex<[ObjectIdentifier: ConnectionHandle]>([:])

    func add(_ connection: ConnectionHandle) {
        self.connections.withLock { $0[ObjectIdentifier(connection)] = connection }
    }

    func remove(_ connection: ConnectionHandle) {
        _ = self.connections.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Every open connection.
    var all: [ConnectionHandle] {
        self.connections.withLock { Array($0.values) }
    }

    var count: Int {
        self.connections.withLock { $0.count }
    }
}
