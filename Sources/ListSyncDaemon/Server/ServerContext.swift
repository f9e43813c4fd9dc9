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
    let logger: Logger
    private let onConnectionsChange: @Sendable () -> Void

    /// - Parameter onConnectionsChange: Called after a connection opens or closes, or a
    ///   subscription starts or ends (the daemon updates its systemd status line).
    init(
        configuration: ServerConfiguration, epoch: Epoch, watches: WatchFeeds, connections: ConnectionRegistry = ConnectionRegistry(),
        logger: Logger, onConnectionsChange: @escaping @Sendable () -> Void = {}
    ) {
        self.configuration = configuration
        self.epoch = epoch
        self.watches = watches
        self.connections = connections
        self.budget = ClientBufferBudget(limit: configuration.clientBufferBudget, connections: connections)
        self.logger = logger
        self.onConnectionsChange = onConnectionsChange
    }

    func connectionsDidChange() {
        self.onConnectionsChange()
    }
}
