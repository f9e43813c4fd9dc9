import CSQLite

/// A prepared statement: bind, step, read columns.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
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
