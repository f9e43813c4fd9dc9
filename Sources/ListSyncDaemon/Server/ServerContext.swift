import ListSyncProtocol
import Logging
import NIOCore
import NIOPosix

/// What every connection of one server shares: its settings, its history epoch, the watches it
/// offers, the registry of open connections and the budget of their buffers.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let epoch: Epoch
    let watches: WatchFeeds
    let connections: ConnectionRegistry
    /// What the connections buffer, bounded by ``ServerConfiguration/clientBufferBudget``.
    let budget: ClientBufferBudget
    /// The daemon's metrics: connections count their ends here, and `metrics` requests read it.
    let metrics: DaemonMetrics
    /// Where the metrics are sampled and version 1 digests computed: off the event loops, which a
    /// slow disk or an O(*n*) digest must not hold up.
    let pool: NIOThreadPool
    let logger: Logger
    private let onConnectionsChange: @Sendable () -> Void
    /// Runs work too slow for an event loop and completes on the loop given: `nil` for ``pool``;
    /// a test on an `EmbeddedEventLoop`, which only its own thread may touch, runs it there later.
    private let offLoop: OffLoop?

    /// Runs `work` off the event loops, then completes the future on the loop given.
    typealias OffLoop = @Sendable (_ eventLoop: any EventLoop, _ work: @escaping @Sendable () -> Void) -> EventLoopFuture<Void>

    /// - Parameter onConnectionsChange: Called after a connection opens or closes, or a
    ///   subscription starts or ends (the daemon updates its systemd status line).
    init(
        configuration: ServerConfiguration, epoch: Epoch, watches: WatchFeeds, connections: ConnectionRegistry = ConnectionRegistry(),
        metrics: DaemonMetrics? = nil, pool: NIOThreadPool = .singleton, offLoop: OffLoop? = nil, logger: Logger,
        onConnectionsChange: @escaping @Sendable () -> Void = {}
    ) {
        self.offLoop = offLoop
        self.configuration = configuration
        self.epoch = epoch
        self.watches = watches
        self.connections = connections
        self.budget = ClientBufferBudget(limit: configuration.clientBufferBudget, connections: connections)
        self.metrics = metrics ?? DaemonMetrics(clientBufferBudget: configuration.clientBufferBudget)
        self.pool = pool
        self.logger = logger
        self.onConnectionsChange = onConnectionsChange
    }

    /// The metrics in the Prometheus text format, with the gauges sampled now (see
    /// ``DaemonMetrics/exposition(keptChangesets:clientBufferBytes:)``), on ``pool``: sampling
    /// `stat`s each watch's state directory, which a slow disk can make take long, so it never
    /// runs on an event loop. The future completes on `eventLoop` (fails only once the pool is
    /// shut down).
    func metricsExposition(on eventLoop: any EventLoop) -> EventLoopFuture<[UInt8]> {
        self.pool.runIfActive(eventLoop: eventLoop) {
            let kept = self.watches.feeds.compactMap { feed in feed.metrics.map { (watch: $0, count: feed.keptChangesets) } }
            return self.metrics.exposition(keptChangesets: kept, clientBufferBytes: self.budget.usedBytes)
        }
    }

    /// Runs `work` — a version 1 digest to compute, which takes tens of milliseconds at a million
    /// rows and would hold up every connection of the loop — on ``pool``, not on `eventLoop`; the
    /// future completes on `eventLoop` (fails only once the pool is shut down).
    func runOffLoop(on eventLoop: any EventLoop, _ work: @escaping @Sendable () -> Void) -> EventLoopFuture<Void> {
        guard let offLoop = self.offLoop else { return self.pool.runIfActive(eventLoop: eventLoop, work) }
        return offLoop(eventLoop, work)
    }

    func connectionsDidChange() {
        self.onConnectionsChange()
    }
}
