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
    /// sink's transactions, and waits up to 5 s for other writers' locks.
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
}

/// A prepared statement: bind, step, read columns.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let database: SQLiteDatabase

    fileprivate init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(self.handle)
    }

    /// Ends the statement's run and unbinds it; a statement left in the middle of its rows keeps
    /// the tables it reads busy (a `DROP TABLE` would fail).
    func reset() {
        sqlite3_reset(self.handle)
        sqlite3_clear_bindings(self.handle)
    }

    /// Binds `values` to the parameters 1, 2, … in order.
    func bind(_ values: [SQLValue]) throws(SinkError) {
        self.reset()
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(self.handle, index)
            case .integer(let integer): status = sqlite3_bind_int64(self.handle, index, integer)
            case .real(let real): status = sqlite3_bind_double(self.handle, index, real)
            case .text(let text): status = sqlite3_bind_text(self.handle, index, text, -1, listsync_sqlite_transient())
            }
            guard status == SQLITE_OK else { throw .database("\(self.database.path): \(self.database.lastError)") }
        }
    }

    /// Runs the statement with `values` to its end, ignoring rows.
    func run(_ values: [SQLValue] = []) throws(SinkError) {
        try self.bind(values)
        while try self.step() {}
    }

    /// Advances to the next row; `false` when done.
    func step() throws(SinkError) -> Bool {
        switch sqlite3_step(self.handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw .database("\(self.database.path): \(self.database.lastError)")
        }
    }

    /// Column `index` of the current row as text; `nil` for NULL.
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(self.handle, index) else { return nil }
        return String(cString: bytes)
    }

    /// The number of columns of a row.
    var columnCount: Int32 { sqlite3_column_count(self.handle) }

    /// Column `index` of the current row as an integer.
    func integer(_ index: Int32) -> Int64 {
        sqlite3_column_int64(self.handle, index)
    }
}
