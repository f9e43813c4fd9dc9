import ListSyncProtocol

/// Why a connection ended, for `listsync_disconnects_total{reason}`: the `goodbye` reasons of
/// the protocol, the client closing it, or an error (a protocol error that closes, a peer no
/// longer allowed, a failed socket).
enum DisconnectReason: String, CaseIterable, Sendable {
    case shutdown
    case slowConsumer = "slow_consumer"
    case closedByClient = "closed_by_client"
    case error

    /// The reason a `goodbye` gives.
    init(_ goodbye: GoodbyeReason) {
        switch goodbye {
        case .shutdown: self = .shutdown
        case .slowConsumer: self = .slowConsumer
        }
    }
}
