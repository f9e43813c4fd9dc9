import ListSyncClient
import ListSyncProtocol

/// What a running sink reports, for its log.
public enum SinkEvent: Sendable {
    /// The table was replaced by a snapshot of `rows` rows at `cursor`.
    case replaced(cursor: Cursor, rows: Int)
    /// A changeset was committed, writing `rows` rows.
    case applied(cursor: Cursor, rows: Int)
    /// A changeset touched most rows (``SinkTable/refills(touched:rows:)``): the table was
    /// refilled with the list after it, `rows` rows, in its transaction (never dropped).
    case refilled(cursor: Cursor, rows: Int)
    /// The sink is subscribed: at start (resuming from the cursor its table holds, or from a
    /// snapshot) and again after each reconnection to the daemon.
    case subscribed(ReplyResult.Subscription)
    /// The table did not match the daemon's list (`--verify`, or a changeset that does not
    /// apply): the sink takes a snapshot; `count` is how many times that happened in this run.
    case resynchronizing(reason: String, count: Int)
    /// The watch's state: `invalid`, `missing` and `removed` leave the table as it is.
    case status(StatusMessage)
    /// Something the sink could not use or do, said why: a stream message that does not decode
    /// or apply (with its stream sequence), a list it could not rebuild from the stream. Nothing
    /// was written or published for it.
    case warning(String)
    /// The connection to the daemon was lost; the sink reconnects after `retryIn` and resumes
    /// (``subscribed(_:)`` again).
    case disconnected(ClientError, retryIn: Duration)
}
