import ListFormats
import ListSyncProtocol

/// What one changeset or snapshot writes into the table: rows by identity, each written once,
/// however many stages touched it — so the rows written are the records that changed.
public struct SinkWrites {
    /// A row the table gets, or whose value changes.
    struct Row {
        var rowID: Int64
        var record: ChangesetStage.Record
        /// Its section's model (`null` in a linear list) and order key; `nil` for an update in
        /// place.
        var place: Place?
    }

    /// Where a row goes.
    struct Place {
        var section: ListValue
        var order: String
    }

    /// Rows that leave.
    var deleted: [Int64] = []
    /// Rows that arrive.
    var inserted: [Row] = []
    /// Rows whose value changes; `place` when they also move.
    var updated: [Row] = []
    /// Rows that only move (a new order key, perhaps another section).
    var moved: [(rowID: Int64, place: Place)] = []
    /// The sections, in order, when they changed.
    var sections: [ChangesetStage.Section]?
    /// The schema change, when the columns changed.
    var schema: SchemaUpdate?

    /// How many rows the changeset writes.
    var rowCount: Int { self.deleted.count + self.inserted.count + self.updated.count + self.moved.count }
}
