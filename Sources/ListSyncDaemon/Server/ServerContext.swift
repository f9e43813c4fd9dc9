import ListSyncProtocol
import Logging

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
    let logger: Logger
    private let onConnectionsChange: @Sendable () -> Void

    /// - Parameter onConnectionsChange: Called after a connection opens or closes, or a
    ///   subscription starts or ends (the daemon updates its systemd status line).
    init(
        configuration: ServerConfiguration, epoch: Epoch, watches: WatchFeeds, connections: ConnectionRegistry = ConnectionRegistry(),
        metrics: DaemonMetrics? = nil, logger: Logger, onConnectionsChange: @escaping @Sendable () -> Void = {}
    ) {
        self.configuration = configuration
        self.epoch = epoch
        self.watches = watches
        self.connections = connections
        self.budget = ClientBufferBudget(limit: configuration.clientBufferBudget, connections: connections)
        self.metrics = metrics ?? DaemonMetrics(clientBufferBudget: configuration.clientBufferBudget)
        self.logger = logger
        self.onConnectionsChange = onConnectionsChange
    }

    /// The metrics in the Prometheus text format, with the gauges sampled now (see
    /// ``DaemonMetrics/exposition(keptChangesets:clientBufferBytes:)``).
    func metricsExposition() -> [UInt8] {
        let kept = self.watches.feeds.compactMap { feed in feed.metrics.map { (watch: $0, count: feed.keptChangesets) } }
        return self.metrics.exposition(keptChangesets: kept, clientBufferBytes: self.budget.usedBytes)
    }

    func connectionsDidChange() {
        self.onConnectionsChange()
    }
}
