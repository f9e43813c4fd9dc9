import CSQLite

/// A prepared statement: bind, step, read columns.
///
/// Bound text is copied once, into a buffer the statement owns, which SQLite reads in place
/// (`SQLITE_STATIC`) until the next reset: no copy of SQLite's own, no allocation per value —
/// a snapshot binds millions.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let database: SQLiteDatabase
    /// The bound text, valid until ``reset()``.
    private var texts: UnsafeMutableRawBufferPointer

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
        self.texts = .allocate(byteCount: 4096, alignment: 1)
    }

    deinit {
        sqlite3_finalize(self.handle)
        self.texts.deallocate()
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
        var length = 0
        for case .text(let text) in values { length += text.utf8.count }
        if length > self.texts.count {
            self.texts.deallocate()
            self.texts = .allocate(byteCount: max(length, 2 * self.texts.count), alignment: 1)
        }
        var used = 0
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(self.handle, index)
            case .integer(let integer): status = sqlite3_bind_int64(self.handle, index, integer)
            case .real(let real): status = sqlite3_bind_double(self.handle, index, real)
            case .text(let text):
                let count = text.utf8.count
                UnsafeMutableRawBufferPointer(rebasing: self.texts[used..<used + count]).copyBytes(from: text.utf8)
                // The buffer's address is never null, so empty text binds as text, not NULL.
                let bytes = (self.texts.baseAddress.unsafelyUnwrapped + used).assumingMemoryBound(to: CChar.self)
                used += count
                // No destructor (SQLITE_STATIC): the buffer outlives the binding.
                status = sqlite3_bind_text64(self.handle, index, bytes, sqlite3_uint64(count), nil, UInt8(SQLITE_UTF8))
            }
            guard status == SQLITE_OK else { throw .database("\(self.database.path): \(self.database.lastError)") }
        }
    }

    /// Runs the statement with `values` to its end, ignoring rows.
    ///
    /// - Returns: How many rows it changed (an `INSERT`, `UPDATE` or `DELETE`).
    @discardableResult
    func run(_ values: [SQLValue] = []) throws(SinkError) -> Int {
        try self.bind(values)
        while try self.step() {}
        return self.database.changes
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
