/// The content hash of a CSV record from its fields, as a reader of the file computes it: for
/// whoever keeps a record's fields apart from its hash (a database sink's columns) and wants to
/// prove them against the daemon's digest.
///
/// The fields are joined into the canonical row (the delimiter between them, each quoted only
/// when it must be), whose XXH3-128 is sealed with the published header (docs/PROTOCOL.md,
/// *Records and sections*).
public struct CSVRecordHasher: Sendable {
    private let delimiter: UInt8
    private let layout: CSVLayout

    /// Hashes records of a file with `delimiter` whose published columns are `columns`.
    public init(columns: ListSchema, delimiter: CSVDelimiter) {
        self.delimiter = delimiter.rawValue
        self.layout = CSVLayout(
            delimiter: delimiter.rawValue, header: columns.columns, key: [], ignored: columns.columns.map { _ in false },
            headerSeed: columns.headerSeed)
    }

    /// The content hash of the record whose published fields, in header order, are `fields`
    /// (an empty string for a field the row does not have). O(size).
    public func contentHash(of fields: some Sequence<String>) -> ContentHash {
        var row = ByteScratch()
        var isFirst = true
        for var field in fields {
            if !isFirst { row.append(self.delimiter) }
            isFirst = false
            field.withUTF8 { CSVFieldEncoding.append(UnsafeRawBufferPointer($0), delimiter: self.delimiter, to: &row) }
        }
        return self.layout.contentHash(ofRow: row.hash128(from: 0))
    }
}
