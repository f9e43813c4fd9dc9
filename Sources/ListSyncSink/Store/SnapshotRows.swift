import ListFormats
import ListSyncClient

/// The rows of a snapshot, one after the other, as the values of
/// ``SinkStatements/insertRow(_:)``: what both stores write when a snapshot replaces a table
/// (SQLite binds them, PostgreSQL sends them with `COPY`).
///
/// Each row is built into the array the caller passes, again and again: a snapshot of a million
/// rows allocates no array per row.
struct SnapshotRows {
    /// The mirror's sections: the values and hashes.
    private let records: [MirroredSection]
    /// The sink's list of the same snapshot: row identities and order keys.
    private let list: SinkList
    private let sql: SinkStatements
    private var section = 0
    private var element = 0
    /// The order keys of the current section: the snapshot's, computed again as the list did
    /// (``OrderKey/spread(_:)``) rather than looked up row by row in its dictionary — a million
    /// lookups at random places in memory.
    private var keys: [String] = []

    /// The rows of `mirror`, whose identities and order keys `list` holds (``SinkList/init(snapshot:cursor:)``).
    init(_ mirror: MirroredList, _ list: SinkList, _ sql: SinkStatements) {
        self.records = mirror.sections
        self.list = list
        self.sql = sql
    }

    /// Puts the next row's values in `values` (replacing what it held); `false` after the last.
    mutating func next(into values: inout [SQLValue]) -> Bool {
        while self.section < self.records.count, self.element >= self.records[self.section].records.count {
            self.section += 1
            self.element = 0
        }
        guard self.section < self.records.count else { return false }
        if self.element == 0 { self.keys = OrderKey.spread(self.records[self.section].records.count) }
        let record = self.records[self.section].records[self.element]
        let rowID = SinkList.rowID(of: self.list.sections[self.section].records[self.element])
        let order = self.keys[self.element]
        assert(order == self.list.orders[rowID], "a snapshot's row has the key its list gave it")
        let place = SinkWrites.Place(section: self.records[self.section].model.model, order: order)
        values.removeAll(keepingCapacity: true)
        self.sql.appendInsertValues(SinkWrites.Row(rowID: rowID, record: record, place: place), self.list.schema, to: &values)
        self.element += 1
        return true
    }
}
