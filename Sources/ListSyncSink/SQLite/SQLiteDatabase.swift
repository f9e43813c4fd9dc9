import CSQLite

/// One connection to a SQLite database file, through SQLite's C API: statements prepared once
/// and reused, transactions, and errors that carry SQLite's message.
///
/// Not thread-safe: one task uses it at a time (the sink's).
final class SQLiteDatabase {
    private let handle: OpaquePointer
    /// The file, for messages.
    let path: String
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating when missing) `path` in WAL mode, so readers are never blocked by the
    /// sink's transactions, and waits up to 5 s for other writers' locks. The page cache holds
    /// up to 64 MiB (SQLite's default: 2 MiB), so that a snapshot of a million rows fills the
    /// table's indexes without reading their pages back from the file.
    init(path: String) throws(SinkError) {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw .database("\(path): \(message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, 5000)
        try self.execute("PRAGMA journal_mode=WAL")
        try self.execute("PRAGMA synchronous=NORMAL")
        try self.execute("PRAGMA cache_size=-65536")
    }

    deinit {
        self.statements.removeAll()
        sqlite3_close_v2(self.handle)
    }

    /// Runs `sql` (one or more statements without parameters), ignoring any rows.
    func execute(_ sql: String) throws(SinkError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(self.handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? self.lastError
            sqlite3_free(message)
            throw .database("\(self.path): \(text) (in \(sql.prefix(200)))")
        }
    }

    /// The prepared statement for `sql`, made once per connection and reset for reuse.
    func statement(_ sql: String) throws(SinkError) -> SQLiteStatement {
        if let statement = self.statements[sql] {
            statement.reset()
            return statement
        }
        var raw: OpaquePointer?
        guard sqlite3_prepare_v2(self.handle, sql, -1, &raw, nil) == SQLITE_OK, let raw else {
            throw .database("\(self.path): \(self.lastError) (in \(sql.prefix(200)))")
        }
        let statement = SQLiteStatement(raw, database: self)
        self.statements[sql] = statement
        return statement
    }

    /// Forgets the prepared statements: after the tables they name changed shape.
    func forgetStatements() {
        self.statements.removeAll()
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), committed when it returns and
    /// rolled back when it throws.
    func transaction<Result>(_ body: () throws(SinkError) -> Result) throws(SinkError) -> Result {
        try self.execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try self.execute("COMMIT")
            return result
        } catch {
            try? self.execute("ROLLBACK")
            throw error
        }
    }

    var lastError: String { String(cString: sqlite3_errmsg(self.handle)) }

    /// How many rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int { Int(sqlite3_changes64(self.handle)) }
}
