import ListFormats
import ListSyncProtocol

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

    /// The bookkeeping tables, created when missing: the cursor of each watch's table and the
    /// sections of each sectioned list, both keyed by watch and table (as `--table` names it:
    /// two sinks of one watch write two tables and keep apart) and written in the transaction of
    /// each changeset, and the owner of each table a sink made or took over (``owner``).
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
            Self.createCursors("listsync_cursors", integer: integer, time: time),
            Self.createSections("listsync_sections", integer: integer),
            """
            CREATE TABLE IF NOT EXISTS listsync_stream_places (
              watch TEXT NOT NULL, table_name TEXT NOT NULL, stream TEXT NOT NULL, epoch TEXT NOT NULL, seq \(integer) NOT NULL,
              stream_sequence \(integer) NOT NULL, PRIMARY KEY (watch, table_name))
            """,
        ]
    }

    private static func createCursors(_ name: String, integer: String, time: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(name) (
          watch TEXT NOT NULL, epoch TEXT NOT NULL, seq \(integer) NOT NULL, digest TEXT NOT NULL,
          updated_at \(time) NOT NULL, table_name TEXT NOT NULL, columns TEXT NOT NULL, PRIMARY KEY (watch, table_name))
        """
    }

    private static func createSections(_ name: String, integer: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(name) (
          watch TEXT NOT NULL, table_name TEXT NOT NULL, position \(integer) NOT NULL, section TEXT NOT NULL, hash TEXT NOT NULL,
          PRIMARY KEY (watch, table_name, position))
        """
    }

    /// One row when `listsync_sections` has its `table_name` column: absent, the bookkeeping was
    /// written by a version that keyed it by watch alone, and ``migration`` rekeys it. PostgreSQL
    /// takes the schema as its parameter.
    var sectionsHaveTableName: String {
        switch self.dialect {
        case .sqlite: "SELECT 1 FROM pragma_table_info('listsync_sections') WHERE name = 'table_name'"
        case .postgres:
            "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'listsync_sections' AND column_name = 'table_name'"
        }
    }

    /// Rekeys bookkeeping written by a version that keyed `listsync_cursors` by watch and
    /// `listsync_sections` by watch and position (one table per watch): each cursor row keeps
    /// its table, each section row gets the table its watch's cursor names (a section row with no
    /// cursor, which that version never left, is dropped). Run in one transaction.
    var migration: [String] {
        switch self.dialect {
        case .postgres:
            return [
                "ALTER TABLE listsync_sections ADD COLUMN table_name TEXT",
                "UPDATE listsync_sections s SET table_name = c.table_name FROM listsync_cursors c WHERE c.watch = s.watch",
                "DELETE FROM listsync_sections WHERE table_name IS NULL",
                """
                ALTER TABLE listsync_sections ALTER COLUMN table_name SET NOT NULL, DROP CONSTRAINT listsync_sections_pkey,
                  ADD PRIMARY KEY (watch, table_name, position)
                """,
                "ALTER TABLE listsync_cursors DROP CONSTRAINT listsync_cursors_pkey, ADD PRIMARY KEY (watch, table_name)",
            ]
        case .sqlite:
            // SQLite cannot change a primary key: each table is copied into one with the new key.
            let integer = self.dialect.integer
            return [
                Self.createCursors("listsync_cursors_rekeyed", integer: integer, time: "TEXT"),
                """
                INSERT INTO listsync_cursors_rekeyed (watch, epoch, seq, digest, updated_at, table_name, columns)
                SELECT watch, epoch, seq, digest, updated_at, table_name, columns FROM listsync_cursors
                """,
                Self.createSections("listsync_sections_rekeyed", integer: integer),
                """
                INSERT INTO listsync_sections_rekeyed (watch, table_name, position, section, hash)
                SELECT s.watch, c.table_name, s.position, s.section, s.hash FROM listsync_sections s JOIN listsync_cursors c ON c.watch = s.watch
                """,
                "DROP TABLE listsync_cursors",
                "ALTER TABLE listsync_cursors_rekeyed RENAME TO listsync_cursors",
                "DROP TABLE listsync_sections",
                "ALTER TABLE listsync_sections_rekeyed RENAME TO listsync_sections",
            ]
        }
    }

    /// Reads the cursor of a watch's table (watch, table as `--table` names it): epoch, seq,
    /// digest, table name, columns (JSON array).
    var selectCursor: String {
        "SELECT epoch, seq, digest, table_name, columns FROM listsync_cursors WHERE watch = \(self.dialect.parameter(1)) AND table_name = \(self.dialect.parameter(2))"
    }

    /// Writes the cursor of a watch's table: watch, epoch, seq, digest, table name, columns.
    var upsertCursor: String {
        let now = self.dialect == .postgres ? "now()" : "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        return """
            INSERT INTO listsync_cursors (watch, epoch, seq, digest, table_name, columns, updated_at)
            VALUES (\(self.parameters(6)), \(now))
            ON CONFLICT (watch, table_name) DO UPDATE SET epoch = excluded.epoch, seq = excluded.seq, digest = excluded.digest,
              columns = excluded.columns, updated_at = excluded.updated_at
            """
    }

    /// Reads the place in a stream of a watch's table (watch, table as `--table` names it):
    /// stream, epoch, seq (the cursor it was written at), stream sequence.
    var selectStreamPlace: String {
        "SELECT stream, epoch, seq, stream_sequence FROM listsync_stream_places WHERE watch = \(self.dialect.parameter(1)) AND table_name = \(self.dialect.parameter(2))"
    }

    /// Writes the place in a stream of a watch's table: watch, table name, stream, epoch, seq,
    /// stream sequence.
    var upsertStreamPlace: String {
        """
        INSERT INTO listsync_stream_places (watch, table_name, stream, epoch, seq, stream_sequence) VALUES (\(self.parameters(6)))
        ON CONFLICT (watch, table_name) DO UPDATE SET stream = excluded.stream, epoch = excluded.epoch, seq = excluded.seq,
          stream_sequence = excluded.stream_sequence
        """
    }

    /// The values of ``upsertStreamPlace`` for `place`, written at `cursor`.
    func streamPlaceValues(watch: String, _ place: SinkStreamPlace, at cursor: Cursor) -> [SQLValue] {
        [
            .text(watch), .text(self.layout.table), .text(place.stream), .text(cursor.epoch.description),
            .integer(Int64(bitPattern: cursor.seq)), .integer(Int64(bitPattern: place.sequence)),
        ]
    }

    /// The place a row of ``selectStreamPlace`` names, when it was written at `cursor`.
    static func streamPlace(stream: String, epoch: String, seq: Int64, sequence: Int64, at cursor: Cursor) -> SinkStreamPlace? {
        guard Epoch(epoch) == cursor.epoch, UInt64(bitPattern: seq) == cursor.seq else { return nil }
        return SinkStreamPlace(stream: stream, sequence: UInt64(bitPattern: sequence))
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

    /// Removes the sections of a watch's table: watch, table.
    var deleteSections: String {
        "DELETE FROM listsync_sections WHERE watch = \(self.dialect.parameter(1)) AND table_name = \(self.dialect.parameter(2))"
    }
    /// Adds a section: watch, table, position, section (the `listsync_section` value), hash.
    var insertSection: String {
        "INSERT INTO listsync_sections (watch, table_name, position, section, hash) VALUES (\(self.parameters(5)))"
    }
    /// The sections of a watch's table in order (watch, table): section, hash.
    var selectSections: String {
        "SELECT section, hash FROM listsync_sections WHERE watch = \(self.dialect.parameter(1)) AND table_name = \(self.dialect.parameter(2)) ORDER BY position"
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
