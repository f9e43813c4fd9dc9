/// What a database's bookkeeping says about the table a sink is to write, and whether the sink
/// may: the one rule both stores follow, inside each write transaction (and once when the sink
/// starts, so that a refusal comes at once).
///
/// A sink writes only into a table that `listsync_tables` records as its watch's — made by a
/// sink of that watch, or taken over with `--take-over-table` — or that does not exist yet. A
/// table made before `listsync_tables` existed counts as the watch's when the watch's row of
/// `listsync_cursors` names it.
struct TableClaim {
    /// The watch `listsync_tables` records for the table; `nil` when none.
    var owner: String?
    /// Whether the watch's own cursor row names the table.
    var cursorNamesTable: Bool
    /// Whether the table exists.
    var exists: Bool

    /// Whether the sink of `watch` may write `table`: throws why not. With `takeOver` (the user's
    /// explicit `--take-over-table`), any table may be taken.
    ///
    /// - Throws: ``SinkError/refused(_:)`` naming the table and who it belongs to.
    func check(table: String, watch: String, takeOver: Bool, in database: String) throws(SinkError) {
        if self.owner == watch || takeOver { return }
        if let owner = self.owner {
            throw .refused(
                "the table \"\(table)\" in \(database) belongs to the sink of the watch \(owner), not \(watch) (listsync_tables); "
                    + "the sink leaves it as it is. Give this sink another --table, or pass --take-over-table to replace its contents with \(watch)'s list")
        }
        guard self.exists, !self.cursorNamesTable else { return }
        throw .refused(
            "the table \"\(table)\" in \(database) was not made by a listsync sink of the watch \(watch); the sink leaves it and its rows as they are. "
                + "Give the sink another --table, or pass --take-over-table to let it replace the table's contents (and columns) with \(watch)'s list")
    }

    /// Whether the table is the watch's now (checked in each changeset's transaction): `nil`
    /// when it is, else why not.
    func divergence(table: String, watch: String) -> String? {
        if !self.exists { return "the table \"\(table)\" no longer exists" }
        if self.owner == watch || (self.owner == nil && self.cursorNamesTable) { return nil }
        if let owner = self.owner { return "the table \"\(table)\" now belongs to the sink of the watch \(owner)" }
        return "the table \"\(table)\" is no longer recorded as \(watch)'s"
    }
}
