/// Why the server is closing a connection, told in a `goodbye` just before it does.
public enum GoodbyeReason: String, Hashable, Sendable, CaseIterable {
    /// The server is shutting down; reconnect later and resume with your cursors.
    case shutdown
    /// The client read too slowly for too long; its messages were piling up.
    case slowConsumer = "slow_consumer"
}
