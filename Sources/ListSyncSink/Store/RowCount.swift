/// The check every `UPDATE` and `DELETE` of a changeset passes: it changed exactly the rows the
/// sink knows the table has. A row missing (deleted by hand, or the table replaced) is a
/// divergence — logged and repaired by a snapshot, never ignored.
enum RowCount {
    /// Checks that a refill kept `expected` rows (`kept`) of the table: it holds the rows the
    /// sink knows, else it was changed by hand.
    static func expectKept(_ expected: Int, _ kept: Int, in table: String) throws(SinkError) {
        guard kept != expected else { return }
        throw .diverged("refilling \(table): \(kept) rows kept where the sink knows \(expected) (the table was changed by hand)")
    }

    /// Throws when deleting `rowID` (or, in bulk, `expected` rows) changed `changed` rows.
    static func expect(_ expected: Int, _ changed: Int, deleting rowID: Int64? = nil, from table: String) throws(SinkError) {
        guard changed != expected else { return }
        throw .diverged(Self.message("DELETE", expected, changed, rowID, table))
    }

    /// Throws when updating `rowID` (or, in bulk, `expected` rows) changed `changed` rows.
    static func expect(_ expected: Int, _ changed: Int, updating rowID: Int64? = nil, in table: String) throws(SinkError) {
        guard changed != expected else { return }
        throw .diverged(Self.message("UPDATE", expected, changed, rowID, table))
    }

    private static func message(_ verb: String, _ expected: Int, _ changed: Int, _ rowID: Int64?, _ table: String) -> String {
        let what = rowID.map { "row \($0)" } ?? "\(expected) rows"
        return "\(verb) of \(what) of \"\(table)\" changed \(changed) rows (the table was changed behind the sink's back)"
    }
}
