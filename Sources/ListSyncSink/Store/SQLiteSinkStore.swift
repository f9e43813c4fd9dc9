import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A sink's table in a SQLite database file (WAL mode: readers are never blocked, and see each
/// changeset whole or not at all).
public final class SQLiteSinkStore: SinkStore {
    private let database: SQLiteDatabase
    /// Held for the store's life: one sink per table.
    private let lock: SQLiteTableLock
    private let watch: String
    public var layout: SinkTableLayout {
        didSet {
            self.sql = SinkStatements(layout: self.layout, dialect: .sqlite)
            self.database.forgetStatements()
        }
    }
    private var sql: SinkStatements
    /// Whether the next snapshot may take the table over from whoever has it (`--take-over-table`):
    /// once, then the table is the watch's.
    private var takeOver: Bool

    /// Takes the table's lock (``SQLiteTableLock``), opens (creating when missing) the database
    /// at `path` for `watch`'s table laid out as `layout`, creates the bookkeeping tables.
    ///
    /// - Parameter takeOver: Whether the first snapshot may replace a table that is not the
    ///   watch's (a user's own, another watch's): the user's explicit `--take-over-table`.
    /// - Throws: ``SinkError/refused(_:)`` when another sink holds the table.
    public init(path: String, watch: String, layout: SinkTableLayout, takeOver: Bool = false) throws(SinkError) {
        self.lock = try SQLiteTableLock(database: path, table: layout.table, watch: watch)
        self.database = try SQLiteDatabase(path: path)
        self.watch = watch
        self.layout = layout
        self.sql = SinkStatements(layout: layout, dialect: .sqlite)
        self.takeOver = takeOver
        try self.database.transaction { () throws(SinkError) in
            for statement in self.sql.bookkeeping { try self.database.execute(statement) }
            let rekeyed = try self.database.statement(self.sql.sectionsHaveTableName)
            defer { rekeyed.reset() }
            guard try !rekeyed.step() else { return }
            for statement in self.sql.migration { try self.database.execute(statement) }
        }
        self.database.forgetStatements()
    }

    /// What the bookkeeping says about the table (read in the caller's transaction, if any).
    private func claim() throws(SinkError) -> TableClaim {
        let owner = try self.database.statement(self.sql.owner)
        defer { owner.reset() }
        try owner.bind([.text(self.sql.tableName)])
        let recorded = try owner.step() ? owner.text(0) : nil
        let cursor = try self.database.statement(self.sql.cursorNamesTable)
        defer { cursor.reset() }
        try cursor.bind([.text(self.watch), .text(self.layout.table)])
        let named = try cursor.step()
        let exists = try self.database.statement("SELECT 1 FROM pragma_table_info(?)")
        defer { exists.reset() }
        try exists.bind([.text(self.layout.table)])
        return TableClaim(owner: recorded, cursorNamesTable: named, exists: try exists.step())
    }

    /// Checks, in a changeset's transaction, that the table is still the watch's, and records it
    /// as the watch's (a table made before `listsync_tables` existed).
    private func checkOwnership() throws(SinkError) {
        if let reason = try self.claim().divergence(table: self.layout.table, watch: self.watch) { throw .diverged(reason) }
        try self.database.statement(self.sql.upsertOwner).run([.text(self.sql.tableName), .text(self.watch)])
    }

    public func load() throws(SinkError) -> SinkState? {
        let claim = try self.claim()
        try claim.check(table: self.layout.table, watch: self.watch, takeOver: self.takeOver, in: self.database.path)
        // A table being taken over holds someone else's rows: a snapshot replaces them.
        guard claim.divergence(table: self.layout.table, watch: self.watch) == nil else { return nil }
        let cursorRow = try self.database.statement(self.sql.selectCursor)
        try cursorRow.bind([.text(self.watch), .text(self.layout.table)])
        defer { cursorRow.reset() }
        guard try cursorRow.step(), let epochText = cursorRow.text(0), let epoch = Epoch(epochText),
            cursorRow.text(3) == self.layout.table, let schema = cursorRow.text(4).flatMap(StoredRows.columns)
        else { return nil }
        let cursor = Cursor(epoch: epoch, seq: UInt64(bitPattern: cursorRow.integer(1)))
        guard try self.tableMatches(schema) else { return nil }
        let (sections, orders) = try self.readSections()
        var list = SinkList(cursor: cursor, schema: schema, sections: sections, orders: orders)
        list.streamPlace = try self.streamPlace(at: cursor)
        return SinkState(list: list)
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
        try sections.bind([.text(self.watch), .text(self.layout.table)])
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
            try self.claim().check(table: self.layout.table, watch: self.watch, takeOver: self.takeOver, in: self.database.path)
            try self.database.statement(self.sql.upsertOwner).run([.text(self.sql.tableName), .text(self.watch)])
            if try self.tableMatches(list.schema) {
                try self.database.execute("DELETE FROM \(self.sql.table)")
            } else {
                try self.database.execute("DROP TABLE IF EXISTS \(self.sql.table)")
                for statement in try self.layout.create(list.schema, .sqlite, qualifiedName: self.sql.table) {
                    try self.database.execute(statement)
                }
                self.database.forgetStatements()
            }
            try self.fill(mirror, list)
        }
        self.takeOver = false
    }

    /// Inserts the rows of `mirror`'s list and writes its sections and cursor.
    private func fill(_ mirror: MirroredList, _ list: SinkList) throws(SinkError) {
        let insert = try self.database.statement(self.sql.insertRow(list.schema))
        var rows = SnapshotRows(mirror, list, self.sql)
        var values: [SQLValue] = []
        while rows.next(into: &values) { try insert.run(values) }
        try self.writeSections(list.sections.map(\.model))
        try self.writeCursor(list, digest: list.digest)
    }

    public func refill(with mirror: MirroredList, state: SinkState, schema: SchemaUpdate?) throws(SinkError) {
        try self.database.transaction { () throws(SinkError) in
            try self.checkOwnership()
            try self.alter(schema)
            try self.database.execute("DELETE FROM \(self.sql.table)")
            try self.fill(mirror, state.list)
        }
    }

    public func refill(_ writes: SinkWrites, state: SinkState, digest: ListDigest) throws(SinkError) {
        let list = state.list
        let removed = "temp.listsync_refill_removed", kept = "temp.listsync_refill_kept"
        try self.database.transaction { () throws(SinkError) in
            try self.checkOwnership()
            try self.alter(writes.schema)
            try self.database.execute("CREATE TEMP TABLE listsync_refill_removed (listsync_row INTEGER PRIMARY KEY)")
            let remove = try self.database.statement("INSERT INTO \(removed) VALUES (?1)")
            for rowID in writes.refillRemoved { _ = try remove.run([.integer(rowID)]) }
            try self.database.execute(
                "CREATE TEMP TABLE listsync_refill_kept AS SELECT * FROM \(self.sql.table) WHERE listsync_row NOT IN (SELECT listsync_row FROM \(removed))")
            try self.database.execute("DELETE FROM \(self.sql.table)")
            let restored = try self.database.statement("INSERT INTO \(self.sql.table) SELECT * FROM \(kept)").run()
            try RowCount.expectKept(writes.refillKeptCount(after: list), restored, in: self.layout.table)
            try self.database.execute("DROP TABLE \(kept)")
            try self.database.execute("DROP TABLE \(removed)")
            let insert = try self.database.statement(self.sql.insertRow(list.schema))
            for row in writes.refillRows(in: list) { _ = try insert.run(self.sql.insertValues(row, list.schema)) }
            let move = try self.database.statement(self.sql.update(self.sql.placeColumns))
            for (rowID, place) in writes.moved {
                try RowCount.expect(1, try move.run(self.sql.placeValues(place) + [.integer(rowID)]), updating: rowID, in: self.layout.table)
            }
            if let sections = writes.sections { try self.writeSections(sections) }
            try self.writeCursor(list, digest: digest)
        }
        // The statements on the temporary tables name tables that are gone.
        self.database.forgetStatements()
    }

    private func alter(_ schema: SchemaUpdate?) throws(SinkError) {
        guard let schema else { return }
        for statement in self.layout.alter(schema.change, .sqlite, qualifiedName: self.sql.table) {
            try self.database.execute(statement)
        }
        self.database.forgetStatements()
    }

    public func apply(_ writes: SinkWrites, state: SinkState, digest: ListDigest) throws(SinkError) {
        let list = state.list
        try self.database.transaction { () throws(SinkError) in
            try self.checkOwnership()
            try self.alter(writes.schema)
            let delete = try self.database.statement(self.sql.deleteRow)
            for rowID in writes.deleted { try RowCount.expect(1, try delete.run([.integer(rowID)]), deleting: rowID, from: self.layout.table) }
            for row in writes.updated {
                let update = self.sql.update(self.sql.updateColumns(list.schema, placed: row.place != nil))
                try RowCount.expect(1, try self.database.statement(update).run(self.sql.updateValues(row, list.schema)), updating: row.rowID, in: self.layout.table)
            }
            let move = try self.database.statement(self.sql.update(self.sql.placeColumns))
            for (rowID, place) in writes.moved {
                try RowCount.expect(1, try move.run(self.sql.placeValues(place) + [.integer(rowID)]), updating: rowID, in: self.layout.table)
            }
            let insert = try self.database.statement(self.sql.insertRow(list.schema))
            for row in writes.inserted { try insert.run(self.sql.insertValues(row, list.schema)) }
            if let sections = writes.sections { try self.writeSections(sections) }
            try self.writeCursor(list, digest: digest)
        }
    }

    private func writeSections(_ sections: [ChangesetStage.Section]) throws(SinkError) {
        try self.database.statement(self.sql.deleteSections).run([.text(self.watch), .text(self.layout.table)])
        let insert = try self.database.statement(self.sql.insertSection)
        for (position, section) in sections.enumerated() {
            try insert.run([.text(self.watch), .text(self.layout.table), .integer(Int64(position)), SinkList.sectionValue(section.model), .text(section.hash.description)])
        }
    }

    private func writeCursor(_ list: SinkList, digest: ListDigest) throws(SinkError) {
        try self.database.statement(self.sql.upsertCursor).run([
            .text(self.watch), .text(list.cursor.epoch.description), .integer(Int64(bitPattern: list.cursor.seq)),
            .text(digest.description), .text(self.layout.table), .text(SinkStatements.columnsText(list.schema)),
        ])
        if let place = list.streamPlace {
            try self.database.statement(self.sql.upsertStreamPlace).run(self.sql.streamPlaceValues(watch: self.watch, place, at: list.cursor))
        }
    }

    /// The table's place in a stream, when it was written at `cursor`.
    private func streamPlace(at cursor: Cursor) throws(SinkError) -> SinkStreamPlace? {
        let row = try self.database.statement(self.sql.selectStreamPlace)
        try row.bind([.text(self.watch), .text(self.layout.table)])
        defer { row.reset() }
        guard try row.step(), let stream = row.text(0), let epoch = row.text(1) else { return nil }
        return SinkStatements.streamPlace(stream: stream, epoch: epoch, seq: row.integer(2), sequence: row.integer(3), at: cursor)
    }

    public func storedDigest(schema: ListSchema, version: DigestVersion) throws(SinkError) -> ListDigest {
        SinkList.digest(schema: schema, of: try self.readSections(verifying: schema).sections, version: version)
    }
}
