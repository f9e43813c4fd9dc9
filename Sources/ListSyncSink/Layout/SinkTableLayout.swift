import ListFormats

/// How a watched list is laid out in a table: which columns, which primary key, and how a
/// record's value fills the columns.
///
/// - Every table has `listsync_row` (the row's identity, an integer the sink assigns: the
///   primary key of a watch without a key, unique otherwise), `listsync_order` (the order key,
///   see ``OrderKey``), `listsync_hash` (the record's content hash, 32 hex digits) and, when the
///   list is sectioned, `listsync_section` (the section's model: the `section_by` value or the
///   JSON member name). Names starting with `listsync_` are the sink's.
/// - A CSV or TSV watch has one column per header field, holding the field's text.
/// - A JSON or NDJSON watch has `listsync_record`, the record as JSON text (`json` in
///   PostgreSQL: it keeps the text as written, `\u0000` too), plus one column per key member and
///   per projected member (`--column`).
/// - In PostgreSQL, a name longer than 63 bytes (table, column, index) is shortened
///   deterministically: ``SQLDialect/identifier(_:)``.
/// - The watch's key's columns are the primary key (several make a composite key): see
///   ``primaryKey(ofWatchKey:)``.
public struct SinkTableLayout: Sendable, Hashable {
    /// Whether records are CSV rows (objects of strings, one column each) or JSON values.
    public enum RecordKind: Sendable, Hashable {
        case csv
        case json

        /// The kind of a watch's `format` as `list` reports it.
        public init(format: String) {
            self = ["csv", "tsv"].contains(format) ? .csv : .json
        }
    }

    /// The table's name.
    public var table: String
    /// The kind of records.
    public var kind: RecordKind
    /// Whether the list is sectioned.
    public var sectioned: Bool
    /// The key's columns: the primary key; empty: `listsync_row` is.
    public var key: [String]
    /// Top-level members of JSON records with columns of their own, besides the key's.
    public var projected: [String]

    /// A layout.
    public init(table: String, kind: RecordKind, sectioned: Bool, key: [String] = [], projected: [String] = []) {
        self.table = table
        self.kind = kind
        self.sectioned = sectioned
        self.key = key
        self.projected = projected
    }

    /// The JSON record's column.
    static let recordColumn = "listsync_record"

    /// The columns that hold the record, for a list with `schema`, in table order.
    func dataColumns(_ schema: ListSchema) -> [String] {
        switch self.kind {
        case .csv:
            return schema.columns
        case .json:
            var columns = self.key
            for member in self.projected where !columns.contains(member) { columns.append(member) }
            return columns + [Self.recordColumn]
        }
    }

    /// Appends the values of ``dataColumns(_:)`` for a record to `values`.
    func appendValues(of value: ListValue, _ schema: ListSchema, to values: inout [SQLValue]) {
        switch self.kind {
        case .csv:
            // A CSV record's members are its columns in header order: found by position, without
            // a search, while the names agree.
            let members: [ListValue.Member]
            if case .object(let all) = value { members = all } else { members = [] }
            for (index, column) in schema.columns.enumerated() {
                let member = index < members.count && members[index].name == column ? members[index].value : value[member: column]
                values.append(member.map { .text($0.text) } ?? .null)
            }
        case .json:
            for member in self.dataColumns(schema).dropLast() { values.append(value[member: member].map(SQLValue.init) ?? .null) }
            values.append(.text(value.jsonText))
        }
    }

    /// The sink's own columns, after the data columns: identity, section, order and hash.
    var internalColumns: [String] {
        ["listsync_row"] + (self.sectioned ? ["listsync_section"] : []) + ["listsync_order", "listsync_hash"]
    }

    /// `CREATE TABLE` for a list with `schema`, and its order index.
    func create(_ schema: ListSchema, _ dialect: SQLDialect, qualifiedName: String) throws(SinkError) -> [String] {
        let data = self.dataColumns(schema)
        for column in self.key where !data.contains(column) {
            throw .layout("the key column \"\(column)\" is not a column of the list (\(schema.columns.joined(separator: ", ")))")
        }
        var definitions = data.map { column in
            let type: String
            switch self.kind {
            case .csv: type = "TEXT"
            case .json: type = column == Self.recordColumn ? dialect.json : dialect.jsonScalar
            }
            return dialect.quoted(column) + " " + type + (column == Self.recordColumn || self.key.contains(column) ? " NOT NULL" : "")
        }
        definitions.append("listsync_row \(dialect.integer) NOT NULL" + (self.key.isEmpty ? " PRIMARY KEY" : " UNIQUE"))
        if self.sectioned { definitions.append("listsync_section TEXT NOT NULL") }
        definitions.append("listsync_order \(dialect.byteOrderedText) NOT NULL")
        definitions.append("listsync_hash TEXT NOT NULL")
        if !self.key.isEmpty { definitions.append("PRIMARY KEY (" + self.key.map(dialect.quoted).joined(separator: ", ") + ")") }
        let orderColumns = (self.sectioned ? "listsync_section, " : "") + "listsync_order"
        // Named for the whole table name (then shortened as any name): distinct tables, distinct indexes.
        let index = dialect.quoted("listsync_order_" + self.table)
        return [
            "CREATE TABLE \(qualifiedName) (\n  " + definitions.joined(separator: ",\n  ") + "\n)",
            "CREATE INDEX \(index) ON \(qualifiedName) (\(orderColumns))",
        ]
    }

    /// The statements that change a CSV table's columns as `change` says (JSON tables keep
    /// theirs: the record column holds every member). Renames go through temporary names, so
    /// that `a → b, b → c` works.
    func alter(_ change: SchemaChange, _ dialect: SQLDialect, qualifiedName: String) -> [String] {
        guard self.kind == .csv else { return [] }
        var statements: [String] = []
        for column in change.removed {
            statements.append("ALTER TABLE \(qualifiedName) DROP COLUMN \(dialect.quoted(column))")
        }
        for (number, rename) in change.renamed.enumerated() {
            statements.append("ALTER TABLE \(qualifiedName) RENAME COLUMN \(dialect.quoted(rename.from)) TO \(dialect.quoted("listsync_renaming_\(number)"))")
        }
        for (number, rename) in change.renamed.enumerated() {
            statements.append("ALTER TABLE \(qualifiedName) RENAME COLUMN \(dialect.quoted("listsync_renaming_\(number)")) TO \(dialect.quoted(rename.to))")
        }
        for column in change.added {
            statements.append("ALTER TABLE \(qualifiedName) ADD COLUMN \(dialect.quoted(column)) TEXT")
        }
        return statements
    }
}
