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

    /// The columns of that version.
    var schema: ListSchema? { self.state?.list.schema }

    /// Reads the list and cursor the table holds (none when there is nothing to resume from).
    public func load() async throws(SinkError) {
        self.state = try await self.store.load()
    }

    /// Replaces the table's contents with `mirror`'s list at `cursor`, in one transaction.
    ///
    /// - Returns: The rows written.
    @discardableResult
    public func replace(with mirror: MirroredList, at cursor: Cursor) async throws(SinkError) -> Int {
        let replaced = SinkState(list: SinkList(snapshot: mirror, cursor: cursor))
        self.state = nil
        try await self.store.replace(with: mirror, state: replaced)
        self.state = replaced
        return mirror.recordCount
    }

    /// Applies `changeset` to the list in memory (checking its digest) and commits its rows with
    /// its cursor.
    ///
    /// - Returns: The rows written: the records that changed.
    /// - Throws: ``SinkError/diverged(_:)`` when the changeset does not apply to the table (take
    ///   a snapshot); a database error otherwise. Either way the table must be loaded or
    ///   replaced before the next changeset.
    @discardableResult
    public func apply(_ changeset: ChangesetMessage) async throws(SinkError) -> Int {
        // Taken out, so the list is changed in place rather than copied.
        guard var current = self.state.take() else { throw .diverged("changeset \(changeset.cursor) arrived before any snapshot") }
        let writes = try current.list.apply(changeset)
        try await self.store.apply(writes, state: current, digest: changeset.digest)
        self.state = current
        return writes.rowCount
    }
}
