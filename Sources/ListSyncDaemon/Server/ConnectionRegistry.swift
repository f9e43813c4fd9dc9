import Synchronization

/// The open connections, so heartbeats, goodbyes and the status line can reach them all.
final class ConnectionRegistry: Sendable {
    private let connections = Mutex<[ObjectIdentifier: ConnectionMailbox]>([:])

    func add(_ connection: ConnectionMailbox) {
        self.connections.withLock { $0[ObjectIdentifier(connection)] = connection }
    }

    func remove(_ connection: ConnectionMailbox) {
        _ = self.connections.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Every open connection.
    var all: [ConnectionMailbox] {
        self.connections.withLock { Array($0.values) }
    }

    var count: Int {
        self.connections.withLock { $0.count }
    }
}
