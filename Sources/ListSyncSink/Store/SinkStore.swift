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

    /// The digest of the table as stored: its sections and rows read back in order.
    func storedDigest() async throws(SinkError) -> ListDigest
}

/// The list a sink's table holds, as the sink keeps it in memory.
public struct SinkState {
    var list: SinkList

    /// The version the table holds.
    public var cursor: Cursor { self.list.cursor }
}

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
