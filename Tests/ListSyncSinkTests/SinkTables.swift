import ListFormats
import ListSyncProtocol

@testable import ListSyncSink

/// Reads a sink's table back the way a user would: with SQL, in `ORDER BY` order.
enum SinkTables {
    /// The SQL that lists a table's rows in the file's order: sections by their position in
    /// `listsync_sections`, records by `listsync_order`.
    static func orderedSelect(_ columns: [String], table: String, watch: String, sectioned: Bool, collate: String = "") -> String {
        let selected = (columns + (sectioned ? ["listsync_section"] : [])).map { "t." + SQLDialect.quote($0) }.joined(separator: ", ")
        let quotedTable = SQLDialect.quote(table)
        guard sectioned else { return "SELECT \(selected) FROM \(quotedTable) t ORDER BY t.listsync_order\(collate)" }
        return """
            SELECT \(selected) FROM \(quotedTable) t JOIN listsync_sections s
              ON s.watch = '\(watch)' AND s.table_name = '\(table.replacingAll("'", with: "''"))' AND s.section = t.listsync_section
            ORDER BY s.position, t.listsync_order\(collate)
            """
    }

    /// Rows of `sql` from a SQLite file, every column as text.
    static func sqlite(_ path: String, _ sql: String) throws -> [[String?]] {
        let database = try SQLiteDatabase(path: path)
        let statement = try database.statement(sql)
        try statement.bind([])
        var rows: [[String?]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.text($0) })
        }
        return rows
    }

    /// A CSV watch's table as a document: each row an object of `columns` (strings), grouped by
    /// `listsync_section` (the last column) when sectioned.
    static func csvDocument(_ rows: [[String?]], columns: [String], sectioned: Bool) -> ListDocument {
        let records = rows.map { row in
            ListValue.object(zip(columns, row).map { ListValue.Member(name: $0, value: .string($1 ?? "")) })
        }
        guard sectioned else { return .records(records) }
        var sections: [ListDocument.Section] = []
        for (row, record) in zip(rows, records) {
            let section = ListValue.string(row.last.flatMap { $0 } ?? "")
            if sections.last?.value == section {
                sections[sections.count - 1].records.append(record)
            } else {
                sections.append(ListDocument.Section(value: section, records: [record]))
            }
        }
        return .sections(sections)
    }

    /// A JSON watch's table as the list of its records (the `listsync_record` column, first).
    static func jsonRecords(_ rows: [[String?]]) throws -> [ListValue] {
        let text = "[" + rows.map { $0[0] ?? "null" }.joined(separator: ",") + "]"
        return try ListReader(options: ReadOptions(format: .json)).read(bytes: Array(text.utf8)).document.allRecords
    }
}
