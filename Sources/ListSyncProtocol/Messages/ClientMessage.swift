/// A message a client sends: the handshake or a request.
///
/// Every request carries a ``RequestID`` that the server copies into its ``ServerMessage/reply(_:)``
/// or ``ServerMessage/error(_:)``. Decode one with ``init(decoding:)`` from a parsed line, encode
/// one with ``encoded()``.
public enum ClientMessage: Hashable, Sendable {
    /// The first message of every connection: the protocol versions the client speaks.
    case hello(ClientHello)
    /// Asks for the watches, with cursor, row count and state (reply: ``ReplyResult/list(_:)``).
    case list(id: RequestID)
    /// Starts receiving a watch: a snapshot, or — when `since` is still in the server's history —
    /// exactly the changesets after it (reply: ``ReplyResult/subscribed(_:)``).
    case subscribe(id: RequestID, watch: String, since: Cursor?)
    /// Stops receiving a watch (reply: ``ReplyResult/unsubscribed(watch:)``).
    case unsubscribe(id: RequestID, watch: String)
    /// Asks for an empty reply, for round trips and keep-alive (reply: ``ReplyResult/pong``).
    case ping(id: RequestID)
    /// Asks for the daemon's metrics in the Prometheus text format (reply:
    /// ``ReplyResult/metrics(exposition:)``). An addition to protocol version 1: older daemons
    /// answer `unknown_type`.
    case metrics(id: RequestID)

    /// The message's `type` on the wire.
    public var type: String {
        switch self {
        case .hello: return "hello"
        case .list: return "list"
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .ping: return "ping"
        case .metrics: return "metrics"
        }
    }

    /// The request's id; `nil` for ``hello(_:)``, which has none.
    public var id: RequestID? {
        switch self {
        case .hello: return nil
        case .list(let id), .subscribe(let id, _, _), .unsubscribe(let id, _), .ping(let id), .metrics(let id): return id
        }
    }
}
