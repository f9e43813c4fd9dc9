/// Why a sink stopped or resynchronized.
public enum SinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database refused or failed: its message, with the file or server.
    case database(String)
    /// A changeset could not be applied to the table as the sink knows it (a position it does
    /// not have), or the result's digest differs from the daemon's: the sink resynchronizes from
    /// a snapshot.
    case diverged(String)
    /// The options cannot describe a table (say a `--key` column the list does not have).
    case layout(String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .database(let message): "database error: \(message)"
        case .diverged(let message): "the table diverged from the list: \(message)"
        case .layout(let message): message
        }
    }
}
