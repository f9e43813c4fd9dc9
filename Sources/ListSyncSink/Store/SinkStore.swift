import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A database a sink keeps a table in: SQLite or PostgreSQL.
///
/// Every method that writes does so in one transaction that also writes the watch's row of
/// `listsync_cursors`: the table is at a cursor exactly when the cursor row says so, whatever
/// happens to the sink or the database in between. That is what makes the sink exactly-once.
public protocol SinkStore: AnyObject {
    /// How the table is laid out.
    var layout: SinkTableLayout { get }

    /// The list the table holds and its cursor; `nil` when there is none to resume from (no
    /// cursor, or a table that is missing or laid out differently).
    func load() async throws(SinkError) -> SinkState?

    /// Replaces the table's contents with `mirror`'s list at `state`'s cursor, in one
    /// transaction: readers see the old contents until it commits, then the new.
    func replace(with mirror: MirroredList, state: SinkState) async throws(SinkError)

    /// Writes one changeset's rows, schema change and sections, and the cursor, in one
    /// transaction.
    func apply(_ writes: SinkWrites, state: SinkState, digest: ListDigest) async throws(SinkError)

    /// The digest of the table as stored: its sections and rows read back in order, each row's
    /// hash recomputed from the values in its columns (``StoredRecordHasher``), under `schema`
    /// (the columns the cursor's version has).
    ///
    /// - Throws: ``SinkError/diverged(_:)`` when the rows cannot be read as the list's (a row in
    ///   a section the sink does not know, a record column that is not JSON).
    func storedDigest(schema: ListSchema) async throws(SinkError) -> ListDigest
}
