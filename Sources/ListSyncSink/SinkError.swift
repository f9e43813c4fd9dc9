/// Why a sink stopped or resynchronized.
///
/// A struct with a ``Code`` rather than an enum (as swift-service-lifecycle's
/// `ServiceGroupError`), so that new kinds can be added without breaking code that switches over
/// them: compare ``code`` with the static members of ``Code``; ``message`` says what happened.
/// Errors are made by the static functions named like the codes, e.g. ``diverged(_:)``.
public struct SinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. Switch over it with a `default`, as more may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case database, diverged, layout, refused
        }

        fileprivate let kind: Kind

        /// The database refused or failed.
        public static let database = Code(kind: .database)
        /// A changeset could not be applied to the table as the sink knows it (a position it does
        /// not have, a row an `UPDATE` or `DELETE` did not find, a table that is no longer the
        /// watch's), or the result's digest differs from the daemon's: the sink resynchronizes
        /// from a snapshot.
        public static let diverged = Code(kind: .diverged)
        /// The options cannot describe a table (say a `--key` column the list does not have).
        public static let layout = Code(kind: .layout)
        /// The sink may not write the table: another sink holds it (its lock), or the sink's
        /// bookkeeping does not record it as made by a sink of this watch (a user's own table,
        /// another watch's). Nothing was written; a usage error (exit status 1).
        public static let refused = Code(kind: .refused)

        /// The code's name, e.g. `diverged`.
        public var description: String { "\(self.kind)" }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened: the database's message with the file or server, what diverged, which
    /// option, or who holds the table.
    public let message: String

    private init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The database refused or failed: its message, with the file or server.
    public static func database(_ message: String) -> SinkError { SinkError(code: .database, message: message) }
    /// The table diverged from the list: how.
    public static func diverged(_ message: String) -> SinkError { SinkError(code: .diverged, message: message) }
    /// The options cannot describe a table: why.
    public static func layout(_ message: String) -> SinkError { SinkError(code: .layout, message: message) }
    /// The sink may not write the table: why.
    public static func refused(_ message: String) -> SinkError { SinkError(code: .refused, message: message) }

    /// What went wrong.
    public var description: String {
        switch self.code.kind {
        case .database: "database error: \(self.message)"
        case .diverged: "the table diverged from the list: \(self.message)"
        case .layout, .refused: self.message
        }
    }
}
