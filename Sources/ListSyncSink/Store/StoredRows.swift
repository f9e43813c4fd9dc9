import ListFormats
import ListSyncClient

/// How a store reads rows back: the sections and rows, from the bookkeeping and the table.
enum StoredRows {
    /// Builds the sections from the stored sections (section value, hash) and rows (identity,
    /// section value, order key, hash) in order key order.
    static func sections(
        stored: [(section: String, hash: ContentHash)], rows: [(rowID: Int64, section: String?, order: String, hash: ContentHash)],
        sectioned: Bool
    ) throws(SinkError) -> (sections: [MirroredSection], orders: [Int64: String]) {
        var sections = stored.map { MirroredSection(model: .init(model: sectioned ? .string($0.section) : .null, hash: $0.hash), records: []) }
        var index: [String: Int] = [:]
        for (position, section) in stored.enumerated() { index[section.section] = position }
        var orders: [Int64: String] = [:]
        orders.reserveCapacity(rows.count)
        for row in rows {
            guard let position = sectioned ? row.section.flatMap({ index[$0] }) : (sections.isEmpty ? nil : 0) else {
                throw .diverged("row \(row.rowID) is in a section the sink does not know")
            }
            sections[position].records.append(SinkList.tag(row.rowID, hash: row.hash))
            orders[row.rowID] = row.order
        }
        return (sections, orders)
    }

    /// The columns stored as a JSON array of strings.
    static func columns(_ text: String) -> ListSchema? {
        guard let document = try? ListReader(options: ReadOptions(format: .json)).read(bytes: Array(text.utf8)).document else { return nil }
        var columns: [String] = []
        for value in document.allRecords {
            guard case .string(let column) = value else { return nil }
            columns.append(column)
        }
        return ListSchema(columns: columns)
    }
}
