/// Why a sink stopped or resynchronized.
public enum SinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database refused or failed: its message, with the file or server.
    case database(String)
    /// A changeset could not be applied to the table as the sink knows it (a position it does
    /// not have, a row an `UPDATE` or `DELETE` did not find, a table that is no longer the
    /// watch's), or the result's digest differs from the daemon's: the sink resynchronizes from
    /// a snapshot.
    case diverged(String)
    /// The options cannot describe a table (say a `--key` column the list does not have).
    case layout(String)
    /// The sink may not write the table: another sink holds it (its lock), or the sink's
    /// bookkeeping does not record it as made by a sink of this watch (a user's own table,
    /// another watch's). Nothing was written; a usage error (exit status 1).
    case refused(String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .database(let message): "database error: \(message)"
        case .diverged(let message): "the table diverged from the list: \(message)"
        case .layout(let message), .refused(let message): message
        }
    }
}
