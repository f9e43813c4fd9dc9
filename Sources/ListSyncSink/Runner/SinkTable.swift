import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A table kept equal to a watched list: its store, and the list as the sink knows it in memory
/// (row identities, order keys, hashes). What ``SinkRunner`` drives with the updates of a
/// subscription, and what a benchmark drives with snapshots and changesets of its own.
public final class SinkTable {
    /// Where the table is.
    public let store: any SinkStore
    /// The list the table holds; `nil` until loaded or replaced, and after a failure.
    private var state: SinkState?

    /// A table in `store`; ``load()`` or ``replace(with:at:)`` gives it its list.
    public init(store: any SinkStore) {
        self.store = store
    }

    /// Forgets the list: the next snapshot replaces the table.
    public func forget() {
        self.state = nil
    }

    /// The version the table holds, as far as the sink knows.
    public var cursor: Cursor? { self.state?.cursor }

    /// The place in the stream that version came from, when it came from a stream.
    public var streamPlace: SinkStreamPlace? { self.state?.streamPlace }

    /// The columns of that version.
    var schema: ListSchema? { self.state?.list.schema }

    /// Reads the list and cursor the table holds (none when there is nothing to resume from).
    public func load() async throws(SinkError) {
        self.state = try await self.store.load()
    }

    /// Replaces the table's contents with `mirror`'s list at `cursor`, in one transaction (with
    /// `streamPlace`, where in a stream the snapshot came from).
    ///
    /// - Returns: The rows written.
    @discardableResult
    public func replace(with mirror: MirroredList, at cursor: Cursor, streamPlace: SinkStreamPlace? = nil) async throws(SinkError) -> Int {
        var list = SinkList(snapshot: mirror, cursor: cursor)
        list.streamPlace = streamPlace
        let replaced = SinkState(list: list)
        self.state = nil
        try await self.store.replace(with: mirror, state: replaced)
        self.state = replaced
        return mirror.recordCount
    }

    /// What committing a changeset wrote.
    public struct Commit: Sendable, Hashable {
        /// The rows written: the records that changed, or every row of a refill.
        public var rows: Int
        /// Whether the changeset touched so many rows that the table was refilled (``refills(touched:rows:)``).
        public var refilled: Bool
    }

    /// A changeset refills the table (every row deleted and the list inserted in bulk, in its
    /// transaction) when it touches more than this share of the rows…
    public static let refillShare = 0.5
    /// …and at least this many: below it, writing the rows one by one is as fast, and keeps the
    /// rows' identities.
    public static let refillMinimumRows = 1000

    /// Whether a changeset that touches `touched` rows of a table of `rows` rows (the more of
    /// before and after) refills it.
    public static func refills(touched: Int, rows: Int) -> Bool {
        touched >= Self.refillMinimumRows && Double(touched) > Self.refillShare * Double(rows)
    }

    /// Applies `changeset` to the list in memory (checking its digest) and commits its rows with
    /// its cursor — or, when it touches most rows (``refills(touched:rows:)``, counted from its
    /// stages) and `mirror` is the list after it (its verified digest is the changeset's),
    /// refills the table with `mirror`'s list in one transaction instead: as exactly once as a
    /// changeset, with far fewer statements and no work on the rows in memory. A mirror resumed
    /// from a cursor has no list (no values): then the changeset is applied to the list in memory
    /// and, when it touches most rows, the table is refilled from the rows it keeps and the rows
    /// the changeset writes (``SinkStore/refill(_:state:digest:)``).
    ///
    /// With `streamPlace` (a sink fed by a stream), where the changeset came from: committed
    /// with it.
    ///
    /// - Throws: ``SinkError/diverged(_:)`` when the changeset does not apply to the table (take
    ///   a snapshot); a database error otherwise. Either way the table must be loaded or
    ///   replaced before the next changeset.
    @discardableResult
    public func apply(_ changeset: ChangesetMessage, mirror: MirroredList? = nil, streamPlace: SinkStreamPlace? = nil) async throws(SinkError) -> Commit {
        // Taken out, so the list is changed in place rather than copied.
        guard var current = self.state.take() else { throw .diverged("changeset \(changeset.cursor) arrived before any snapshot") }
        if let mirror, mirror.digest == changeset.digest, changeset.cursor.epoch == current.cursor.epoch, changeset.prevSeq == current.cursor.seq,
            Self.refills(touched: changeset.touchedRecords, rows: max(current.list.rowCount, mirror.recordCount))
        {
            var list = SinkList(snapshot: mirror, cursor: changeset.cursor)
            list.streamPlace = streamPlace
            let refilled = SinkState(list: list)
            try await self.store.refill(with: mirror, state: refilled, schema: changeset.schema)
            self.state = refilled
            return Commit(rows: mirror.recordCount, refilled: true)
        }
        let before = current.list.rowCount
        // The mirror speaks the connection's protocol version: its changesets carry that digest.
        if let mirror { current.list.useDigestVersion(mirror.digestVersion) }
        let writes = try current.list.apply(changeset)
        current.list.streamPlace = streamPlace
        if Self.refills(touched: changeset.touchedRecords, rows: max(before, current.list.rowCount)) {
            // No list to refill from (the sink resumed from its cursor): the database keeps the
            // rows the changeset does not write anew.
            try await self.store.refill(writes, state: current, digest: changeset.digest)
            self.state = current
            return Commit(rows: current.list.rowCount, refilled: true)
        }
        try await self.store.apply(writes, state: current, digest: changeset.digest)
        self.state = current
        return Commit(rows: writes.rowCount, refilled: false)
    }
}
