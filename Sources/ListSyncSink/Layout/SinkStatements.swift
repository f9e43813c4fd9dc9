import ListFormats

/// The SQL text of everything the sink writes, for one table in one dialect: the one place the
/// statements are written, for SQLite and PostgreSQL alike.
struct SinkStatements {
    let layout: SinkTableLayout
    let dialect: SQLDialect
    /// The table's name as SQL: quoted, with its schema when it has one.
    let table: String
    /// The table's name as the database has it (``SQLDialect/identifier(_:)``), unquoted: what
    /// the catalog and `listsync_tables` hold.
    let tableName: String

    /// Statements for `layout` in `dialect`; `schema` is PostgreSQL's schema (namespace).
    init(layout: SinkTableLayout, dialect: SQLDialect, schema: String? = nil) {
        self.layout = layout
        self.dialect = dialect
        self.table = (schema.map { dialect.quoted($0) + "." } ?? "") + dialect.quoted(layout.table)
        self.tableName = dialect.identifier(layout.table)
    }

    private func parameters(_ count: Int, from first: Int = 1) -> String {
        (first..<first + count).map(self.dialect.parameter).joined(separator: ", ")
    }

    /// The parameter for `column`: PostgreSQL's JSON record column takes its text as `json`.
    private func parameter(_ number: Int, for column: String) -> String {
        let cast = self.dialect == .postgres && self.layout.kind == .json && column == SinkTableLayout.recordColumn ? "::json" : ""
        return self.dialect.parameter(number) + cast
    }

    private func assignments(_ columns: [String], from first: Int = 1) -> String {
        columns.enumerated().map { self.dialect.quoted($0.element) + " = " + self.parameter(first + $0.offset, for: $0.element) }
            .joined(separator: ", ")
    }

    /// Whether a table with `columns` and primary key `key` (in key order), as the database
    /// names them, is laid out for a list with `schema`: otherwise a snapshot recreates it.
    func matches(columns: Set<String>, key: [String], _ schema: ListSchema) -> Bool {
        let expectedKey = self.layout.key.isEmpty ? ["listsync_row"] : self.layout.key
        return columns == Set(self.insertColumns(schema).map(self.dialect.identifier)) && key == expectedKey.map(self.dialect.identifier)
    }

    /// The bookkeeping tables, created when missing: the cursor of each watch and the sections
    /// of each sectioned list, both written in the transaction of each changeset, and the owner
    /// of each table a sink made or took over (``owner``).
    var bookkeeping: [String] {
        let integer = self.dialect.integer
        let time = self.dialect == .postgres ? "TIMESTAMPTZ" : "TEXT"
        // SQLite's names ignore ASCII case (`Products` is `products`), as NOCASE compares.
        let names = self.dialect == .sqlite ? " COLLATE NOCASE" : ""
        return [
            """
            CREATE TABLE IF NOT EXISTS listsync_tables (
              table_name TEXT\(names) PRIMARY KEY, watch TEXT NOT NULL, since \(time) NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS listsync_cursors (
              watch TEXT PRIMARY KEY, epoch TEXT NOT NULL, seq \(integer) NOT NULL, digest TEXT NOT NULL,
              updated_at \(time) NOT NULL, table_name TEXT NOT NULL, columns TEXT NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS listsync_sections (
              watch TEXT NOT NULL, position \(integer) NOT NULL, section TEXT NOT NULL, hash TEXT NOT NULL,
              PRIMARY KEY (watch, position))
            """,
        ]
    }

    /// Reads a watch's cursor: epoch, seq, digest, table name, columns (JSON array).
    var selectCursor: String {
        "SELECT epoch, seq, digest, table_name, columns FROM listsync_cursors WHERE watch = \(self.dialect.parameter(1))"
    }

    /// Writes a watch's cursor: watch, epoch, seq, digest, table name, columns.
    var upsertCursor: String {
        let now = self.dialect == .postgres ? "now()" : "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        return """
            INSERT INTO listsync_cursors (watch, epoch, seq, digest, table_name, columns, updated_at)
            VALUES (\(self.parameters(6)), \(now))
            ON CONFLICT (watch) DO UPDATE SET epoch = excluded.epoch, seq = excluded.seq, digest = excluded.digest,
              table_name = excluded.table_name, columns = excluded.columns, updated_at = excluded.updated_at
            """
    }

    /// The watch that owns a table (by ``tableName``): the one whose sink made it or took it over.
    var owner: String { "SELECT watch FROM listsync_tables WHERE table_name = \(self.dialect.parameter(1))" }

    /// Records a table's owner: table name, watch.
    var upsertOwner: String {
        let now = self.dialect == .postgres ? "now()" : "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        return """
            INSERT INTO listsync_tables (table_name, watch, since) VALUES (\(self.parameters(2)), \(now))
            ON CONFLICT (table_name) DO UPDATE SET watch = excluded.watch, since = excluded.since
            WHERE listsync_tables.watch <> excluded.watch
            """
    }

    /// Whether a watch's cursor names a table (watch, table as `--table` names it): how a table
    /// made before `listsync_tables` existed is known as the watch's.
    var cursorNamesTable: String {
        "SELECT 1 FROM listsync_cursors WHERE watch = \(self.dialect.parameter(1)) AND table_name = \(self.dialect.parameter(2))"
    }

    /// Removes a watch's sections.
    var deleteSections: String { "DELETE FROM listsync_sections WHERE watch = \(self.dialect.parameter(1))" }
    /// Adds a section: watch, position, section (the `listsync_section` value), hash.
    var insertSection: String { "INSERT INTO listsync_sections (watch, position, section, hash) VALUES (\(self.parameters(4)))" }
    /// A watch's sections in order: section, hash.
    var selectSections: String {
        "SELECT section, hash FROM listsync_sections WHERE watch = \(self.dialect.parameter(1)) ORDER BY position"
    }

    /// Every row's identity, section, order key and hash, then the values of `values` as text,
    /// in order key order.
    func selectRows(values: [String] = []) -> String {
        let text = self.dialect == .postgres ? "::text" : ""
        let selected = values.map { ", " + self.dialect.quoted($0) + text }.joined()
        return "SELECT listsync_row, \(self.layout.sectioned ? "listsync_section" : "NULL"), listsync_order, listsync_hash\(selected) FROM \(self.table) ORDER BY listsync_order"
    }

    /// Removes one row by identity.
    var deleteRow: String { "DELETE FROM \(self.table) WHERE listsync_row = \(self.dialect.parameter(1))" }

    /// The columns of a new row: data, then the sink's own.
    func insertColumns(_ schema: ListSchema) -> [String] {
        self.layout.dataColumns(schema) + self.layout.internalColumns
    }

    /// Adds a row: the values of ``insertColumns(_:)``.
    func insertRow(_ schema: ListSchema) -> String {
        let columns = self.insertColumns(schema)
        let values = columns.enumerated().map { self.parameter($0.offset + 1, for: $0.element) }.joined(separator: ", ")
        return "INSERT INTO \(self.table) (\(columns.map(self.dialect.quoted).joined(separator: ", "))) VALUES (\(values))"
    }

    /// The columns of a row's place.
    var placeColumns: [String] { (self.layout.sectioned ? ["listsync_section"] : []) + ["listsync_order"] }

    /// The columns an update of a row's value sets (with its place when `placed`).
    func updateColumns(_ schema: ListSchema, placed: Bool) -> [String] {
        self.layout.dataColumns(schema) + ["listsync_hash"] + (placed ? self.placeColumns : [])
    }

    /// Sets `columns` of the row whose identity is the last parameter.
    func update(_ columns: [String]) -> String {
        "UPDATE \(self.table) SET \(self.assignments(columns)) WHERE listsync_row = \(self.dialect.parameter(columns.count + 1))"
    }

    /// Sets `columns` of every row of `source` (a table with those columns and `listsync_row`)
    /// at once: PostgreSQL's bulk form of ``update(_:)``.
    func update(_ columns: [String], from source: String) -> String {
        let assignments = columns.map { self.dialect.quoted($0) + " = s." + self.dialect.quoted($0) }.joined(separator: ", ")
        return "UPDATE \(self.table) t SET \(assignments) FROM \(source) s WHERE t.listsync_row = s.listsync_row"
    }

    /// The values that place a row.
    func placeValues(_ place: SinkWrites.Place) -> [SQLValue] {
        (self.layout.sectioned ? [SinkList.sectionValue(place.section)] : []) + [.text(place.order)]
    }

    /// The values of ``insertRow(_:)`` for a row.
    func insertValues(_ row: SinkWrites.Row, _ schema: ListSchema) -> [SQLValue] {
        var values: [SQLValue] = []
        self.appendInsertValues(row, schema, to: &values)
        return values
    }

    /// Appends the values of ``insertRow(_:)`` for a row to `values`: a snapshot's rows reuse
    /// one array.
    func appendInsertValues(_ row: SinkWrites.Row, _ schema: ListSchema, to values: inout [SQLValue]) {
        let place = row.place ?? SinkWrites.Place(section: .null, order: "")
        self.layout.appendValues(of: row.record.value, schema, to: &values)
        values.append(.integer(row.rowID))
        if self.layout.sectioned { values.append(SinkList.sectionValue(place.section)) }
        values.append(.text(place.order))
        values.append(.text(row.record.hash.description))
    }

    /// The values of an update of `row` (``updateColumns(_:placed:)``, then the identity).
    func updateValues(_ row: SinkWrites.Row, _ schema: ListSchema) -> [SQLValue] {
        var values: [SQLValue] = []
        self.layout.appendValues(of: row.record.value, schema, to: &values)
        return values + [.text(row.record.hash.description)] + (row.place.map(self.placeValues) ?? []) + [.integer(row.rowID)]
    }

    /// The schema's columns as a JSON array, for the cursor row.
    static func columnsText(_ schema: ListSchema) -> String {
        ListValue.array(schema.columns.map(ListValue.string)).jsonText
    }
}
