import ListFormats
import ListSyncClient

extension SinkWrites {
    /// The rows a refill takes out of the table and writes anew: the deleted ones and the updated
    /// ones. The others — untouched or only moved — are kept by the database (copied aside while
    /// the table is emptied), since a sink that resumed from its cursor has no values for them.
    var refillRemoved: [Int64] { self.deleted + self.updated.map(\.rowID) }

    /// The rows a refill inserts after the kept ones: the inserted and updated rows, each with its
    /// place — an update in place takes its row's section and order key from `list`, the list
    /// after the changeset. Made one at a time as they are read (a refill's rows go straight
    /// into `COPY` or an insert): never all at once.
    func refillRows(in list: SinkList) -> some Sequence<Row> {
        let unplaced = Set(self.updated.lazy.filter { $0.place == nil }.map(\.rowID))
        var places: [Int64: Place] = [:]
        if !unplaced.isEmpty {
            for section in list.sections {
                for record in section.records {
                    let rowID = SinkList.rowID(of: record)
                    guard unplaced.contains(rowID), let order = list.orders[rowID] else { continue }
                    places[rowID] = Place(section: section.model.model, order: order)
                }
            }
        }
        return sequence(state: (inserted: self.inserted.makeIterator(), updated: self.updated.makeIterator())) { rows -> Row? in
            if let row = rows.inserted.next() { return row }
            guard var row = rows.updated.next() else { return nil }
            if row.place == nil { row.place = places[row.rowID] }
            return row
        }
    }

    /// The rows a refill keeps of a table that holds `list`'s rows before the changeset, were it
    /// as the sink knows it: those of `list` after it, less the inserted and updated ones.
    func refillKeptCount(after list: SinkList) -> Int {
        list.rowCount - self.inserted.count - self.updated.count
    }
}
