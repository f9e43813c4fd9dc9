/// A message the server sends: an answer to a request, or a pushed message.
///
/// Everything but ``hello(_:)``, ``reply(_:)`` and ``error(_:)`` is *pushed* (`"push": true` on
/// the wire). Decode one with ``init(decoding:)`` from a parsed line; encode one with
/// ``encoded()``. The daemon encodes a changeset once and writes the same bytes to every
/// subscriber.
public enum ServerMessage: Hashable, Sendable {
    /// The answer to the client's `hello`.
    case hello(ServerHello)
    /// A request's successful answer.
    case reply(Reply)
    /// A request that failed, or a line that could not be read.
    case error(ErrorMessage)
    /// Part of a snapshot (pushed).
    case snapshot(SnapshotChunk)
    /// A new version (pushed).
    case changeset(ChangesetMessage)
    /// One part of a changeset too large for one line (pushed; protocol version 2): a `changeset`
    /// message with `part`, which ``ChangesetPartAssembly`` puts back together.
    case changesetPart(ChangesetPartMessage)
    /// A watch's state (pushed).
    case status(StatusMessage)
    /// The server is alive (pushed): milliseconds since the Unix epoch.
    case heartbeat(time: Int64)
    /// The server is closing the connection (pushed).
    case goodbye(reason: GoodbyeReason)

    /// The message's `type` on the wire.
    public var type: String {
        switch self {
        case .hello: return "hello"
        case .reply: return "reply"
        case .error: return "error"
        case .snapshot: return "snapshot"
        case .changeset, .changesetPart: return "changeset"
        case .status: return "status"
        case .heartbeat: return "heartbeat"
        case .goodbye: return "goodbye"
        }
    }

    /// Whether the message is pushed rather than an answer.
    public var isPush: Bool {
        switch self {
        case .hello, .reply, .error: return false
        case .snapshot, .changeset, .changesetPart, .status, .heartbeat, .goodbye: return true
        }
    }
}
