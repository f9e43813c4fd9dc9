import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A sink's table in a SQLite database file (WAL mode: readers are never blocked, and see each
/// changeset whole or not at all).
public final class SQLiteSinkStore: SinkStore {
    private let database: SQLiteDatabase
    private let watch: String
    public let layout: SinkTableLayout
    private let sql: SinkStatements

    /// Opens (creating when missing) the database at `path` for `watch`'s table laid out as
    /// `layout`, and creates the bookkeeping tables.
    public init(path: String, watch: String, layout: SinkTableLayout) throws(SinkError) {
        self.database = try SQLiteDatabase(path: path)
        self.watch = watch
        self.layout = layout
        self.sql = SinkStatements(layout: layout, dialect: .sqlite)
        for statement in self.sql.bookkeeping { try self.database.execute(statement) }
    }

    public func load() throws(SinkError) -> SinkState? {
        let cursorRow = try self.database.statement(self.sql.selectCursor)
        try cursorRow.bind([.text(self.watch)])
        defer { cursorRow.reset() }
        guard try cursorRow.step(), let epochText = cursorRow.text(0), let epoch = Epoch(epochText),
            cursorRow.text(3) == self.layout.table, let schema = cursorRow.text(4).flatMap(StoredRows.columns)
        else { return nil }
        let cursor = Cursor(epoch: epoch, seq: UInt64(bitPattern: cursorRow.integer(1)))
        guard try self.tableMatches(schema) else { return nil }
        let (sections, orders) = try self.readSections()
        return SinkState(list: SinkList(cursor: cursor, schema: schema, sections: sections, orders: orders))
    }

    /// Whether the table exists with the columns and primary key the layout gives `schema`.
    private func tableMatches(_ schema: ListSchema) throws(SinkError) -> Bool {
        let info = try self.database.statement("SELECT name, pk FROM pragma_table_info(?) ORDER BY pk")
        try info.bind([.text(self.layout.table)])
        var columns = Set<String>()
        var key: [String] = []
        while try info.step() {
            guard let name = info.text(0) else { continue }
            columns.insert(name)
            if info.integer(1) > 0 { key.append(name) }
        }
        return self.sql.matches(columns: columns, key: key, schema)
    }

    /// The sections and rows as stored; with `verifying`, each row's hash recomputed from its
    /// values (``StoredRecordHasher``) rather than read from `listsync_hash`.
    private func readSections(verifying schema: ListSchema? = nil) throws(SinkError) -> (sections: [MirroredSection], orders: [Int64: String]) {
        var stored: [(section: String, hash: ContentHash)] = []
        let sections = try self.database.statement(self.sql.selectSections)
        try sections.bind([.text(self.watch)])
        while try sections.step() {
            guard let section = sections.text(0), let hash = sections.text(1).flatMap(ContentHash.init) else {
                throw .diverged("a section of \(self.watch) in listsync_sections has no hash")
            }
            stored.append((section, hash))
        }
        var rows: [(rowID: Int64, section: String?, order: String, hash: ContentHash)] = []
        var hasher = schema.map { StoredRecordHasher(layout: self.layout, schema: $0) }
        let values = schema.map { StoredRecordHasher.columns(self.layout, $0) } ?? []
        let select = try self.database.statement(self.sql.selectRows(values: values))
        try select.bind([])
        while try select.step() {
            guard let order = select.text(2), var hash = select.text(3).flatMap(ContentHash.init) else {
                throw .diverged("row \(select.integer(0)) has no order key or hash")
            }
            if hasher != nil {
                hash = try hasher?.contentHash(of: values.indices.map { select.text(Int32(4 + $0)) }, stored: hash) ?? hash
            }
            rows.append((select.integer(0), select.text(1), order, hash))
        }
        return try StoredRows.sections(stored: stored, rows: rows, sectioned: self.layout.sectioned)
    }

    public func replace(with mirror: MirroredList, state: SinkState) throws(SinkError) {
        let list = state.list
        try self.database.transaction { () throws(SinkError) in
            if try self.tableMatches(list.schema) {
                try self.database.execute("DELETE FROM \(self.sql.table)")
            } else {
                try self.database.execute("DROP TABLE IF EXISTS \(self.sql.table)")
                for statement in try self.layout.create(list.schema, .sqlite, qualifiedName: self.sql.table) {
                    try self.database.execute(statement)
                }
                self.database.forgetStatements()
            }
            let insert = try self.database.statement(self.sql.insertRow(list.schema))
            var rows = SnapshotRows(mirror, list, self.sql)
            var values: [SQLValue] = []
            while rows.next(into: &values) { try insert.run(values) }
            try self.writeSections(list.sections.map(\.model))
            try self.writeCursor(list, digest: list.digest)
        }
    }

    public func apply(_ writes: SinkWrites, state: SinkState, digest: ListDigest) throws(SinkError) {
        let list = state.list
        try self.database.transaction { () throws(SinkError) in
            if let schema = writes.schema {
                for statement in self.layout.alter(schema.change, qualifiedName: self.sql.table) {
                    try self.database.execute(statement)
                }
                self.database.forgetStatements()
            }
            let delete = try self.database.statement(self.sql.deleteRow)
            for rowID in writes.deleted { try delete.run([.integer(rowID)]) }
            for row in writes.updated {
                let update = self.sql.update(self.sql.updateColumns(list.schema, placed: row.place != nil))
                try self.database.statement(update).run(self.sql.updateValues(row, list.schema))
            }
            let move = try self.database.statement(self.sql.update(self.sql.placeColumns))
            for (rowID, place) in writes.moved { try move.run(self.sql.placeValues(place) + [.integer(rowID)]) }
            let insert = try self.database.statement(self.sql.insertRow(list.schema))
            for row in writes.inserted { try insert.run(self.sql.insertValues(row, list.schema)) }
            if let sections = writes.sections { try self.writeSections(sections) }
            try self.writeCursor(list, digest: digest)
        }
    }

    private func writeSections(_ sections: [ChangesetStage.Section]) throws(SinkError) {
        try self.database.statement(self.sql.deleteSections).run([.text(self.watch)])
        let insert = try self.database.statement(self.sql.insertSection)
        for (position, section) in sections.enumerated() {
            try insert.run([.text(self.watch), .integer(Int64(position)), SinkList.sectionValue(section.model), .text(section.hash.description)])
        }
    }

    private func writeCursor(_ list: SinkList, digest: ListDigest) throws(SinkError) {
        try self.database.statement(self.sql.upsertCursor).run([
            .text(self.watch), .text(list.cursor.epoch.description), .integer(Int64(bitPattern: list.cursor.seq)),
            .text(digest.description), .text(self.layout.table), .text(SinkStatements.columnsText(list.schema)),
        ])
    }

    public func storedDigest(schema: ListSchema) throws(SinkError) -> ListDigest {
        SinkList.digest(schema: schema, of: try self.readSections(verifying: schema).sections)
    }
}
