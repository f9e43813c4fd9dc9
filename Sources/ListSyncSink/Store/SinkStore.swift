import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A database a sink keeps a table in: SQLite or PostgreSQL.
///
/// Every method that writes does so in one transaction that also writes the watch's row of
/// `listsync_cursors`: the table is at a cursor exactly when the cursor row says so, whatever
/// happens to the sink or the database in between. That is what makes the sink exactly-once.
///
/// A store writes only a table its watch owns (``TableClaim``): each write transaction checks
/// it, and a table that is not the watch's is refused (``SinkError/refused(_:)``) or, in the
/// middle of a run, a divergence. A store holds a lock on its table for as long as it lives, so
/// that one sink at a time writes it.
public protocol SinkStore: AnyObject {
    /// How the table is laid out: set it (same table name) when the watch needs another layout,
    /// and the next snapshot recreates the table; the store and its lock stay.
    var layout: SinkTableLayout { get set }

    /// The list the table holds and its cursor; `nil` when there is none to resume from (no
    /// cursor, or a table that is missing or laid out differently).
    func load() async throws(SinkError) -> SinkState?

    /// Replaces the table's contents with `mirror`'s list at `state`'s cursor, in one
    /// transaction: readers see the old contents until it commits, then the new.
    func replace(with mirror: MirroredList, state: SinkState) async throws(SinkError)

    /// Writes one changeset's rows, schema change and sections, and the cursor, in one
    /// transaction.
    ///
    /// - Throws: ``SinkError/diverged(_:)`` when the table is no longer the watch's, or an
    ///   `UPDATE` or `DELETE` did not find its row (the table was changed by hand).
    func apply(_ writes: SinkWrites, state: SinkState, digest: ListDigest) async throws(SinkError)

    /// Writes a changeset that touches most rows as a refill, in one transaction: its schema
    /// change (`ALTER TABLE`), then every row deleted and `mirror`'s list — the version after
    /// the changeset, at `state`'s cursor — inserted in bulk, with the sections and the cursor.
    /// The table is never dropped: its grants, views, triggers and indexes stay.
    func refill(with mirror: MirroredList, state: SinkState, schema: SchemaUpdate?) async throws(SinkError)

    /// Writes a changeset that touches most rows as a refill when the sink holds no values of the
    /// rows (it resumed from its cursor), in one transaction: its schema change, then the rows
    /// it does not write anew (untouched or only moved) copied aside into a temporary table, the
    /// table emptied, and the kept rows, the changeset's inserted and updated `writes` (in bulk)
    /// and its moves written back, with the sections and the cursor. Never dropped either.
    ///
    /// - Throws: ``SinkError/diverged(_:)`` when the table is no longer the watch's, or does not
    ///   hold the rows the sink knows (it was changed by hand).
    func refill(_ writes: SinkWrites, state: SinkState, digest: ListDigest) async throws(SinkError)

    /// The digest of the table as stored: its sections and rows read back in order, each row's
    /// hash recomputed from the values in its columns (``StoredRecordHasher``), under `schema`
    /// (the columns the cursor's version has), in the `version` digest (the one the source's
    /// changesets carry).
    ///
    /// - Throws: ``SinkError/diverged(_:)`` when the rows cannot be read as the list's (a row in
    ///   a section the sink does not know, a record column that is not JSON).
    func storedDigest(schema: ListSchema, version: DigestVersion) async throws(SinkError) -> ListDigest
}
