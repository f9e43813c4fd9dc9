/// The SQL the sink's databases differ in.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// `name` as an identifier: in double quotes, quotes doubled, so any watch or column name
    /// works (`"my list"`, `"a""b"`).
    static func quote(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }

    /// The `n`th parameter (from 1).
    func parameter(_ number: Int) -> String {
        switch self {
        case .sqlite: "?"
        case .postgres: "$\(number)"
        }
    }

    /// The type of text columns that sort byte by byte: order keys.
    var byteOrderedText: String {
        switch self {
        case .sqlite: "TEXT"
        case .postgres: "TEXT COLLATE \"C\""
        }
    }

    /// The type of the JSON record column: in PostgreSQL `json`, which keeps the text as written
    /// — `jsonb` cannot hold a string with U+0000 (`\u0000`), and respells numbers.
    var json: String {
        switch self {
        case .sqlite: "TEXT"
        case .postgres: "JSON"
        }
    }

    /// The type of values projected from JSON records (any JSON scalar).
    var jsonScalar: String {
        switch self {
        case .sqlite: "ANY"
        case .postgres: "TEXT"
        }
    }

    /// The type of row identities and sequence numbers.
    var integer: String {
        switch self {
        case .sqlite: "INTEGER"
        case .postgres: "BIGINT"
        }
    }
}
