import ListSyncProtocol
import Logging

/// What every connection of one server shares: its settings, its history epoch, the watches it
/// offers and the registry of open connections.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let epoch: Epoch
    let watches: WatchDirectory
    let connections: ConnectionRegistry
    let logger: Logger
    private let onConnectionsChange: @Sendable () -> Void

    /// - Parameter onConnectionsChange: Called after a connection opens or closes, or a
    ///   subscription starts or ends (the daemon updates its systemd status line).
    init(
        configuration: ServerConfiguration, epoch: Epoch, watches: WatchDirectory, connections: ConnectionRegistry = ConnectionRegistry(),
        logger: Logger, onConnectionsChange: @escaping @Sendable () -> Void = {}
    ) {
        self.configuration = configuration
        self.epoch = epoch
        self.watches = watches
        self.connections = connections
        self.logger = logger
        self.onConnectionsChange = onConnectionsChange
    }

    func connectionsDidChange() {
        self.onConnectionsChange()
    }
}
