import ListFormats

/// Recomputes a row's content hash from the values stored in its columns, as the daemon computes
/// it for the record: what `--verify` proves a table with, so that a value changed behind the
/// sink's back is found even when the row's `listsync_hash` was left as it was.
///
/// - CSV: the columns' text (NULL: an empty field) through ``CSVRecordHasher``. The daemon does
///   not say which delimiter a CSV watch's file uses, and the canonical row depends on it: the
///   first of comma, semicolon, tab and pipe that reproduces a row's stored hash is taken, and
///   kept for the rows after. A row that no delimiter reproduces is hashed with the one taken
///   (or a comma): its hash differs from the daemon's, and the digest shows it.
/// - JSON: the record column read as JSON, its canonical hash (``ListValue/contentHash``).
///   PostgreSQL's `json` column gives back the text the sink wrote (`1e2`, `-0` and `\u0000`
///   as written).
struct StoredRecordHasher {
    private let kind: SinkTableLayout.RecordKind
    private let schema: ListSchema
    /// The delimiter taken, once a row's stored hash showed it.
    private var csv: CSVRecordHasher?

    /// A hasher for the rows of a table laid out as `layout` holding a list with `schema`.
    init(layout: SinkTableLayout, schema: ListSchema) {
        self.kind = layout.kind
        self.schema = schema
    }

    /// The columns whose values make a row's hash, in the order ``contentHash(of:stored:)``
    /// takes them: the CSV columns, or the JSON record.
    static func columns(_ layout: SinkTableLayout, _ schema: ListSchema) -> [String] {
        switch layout.kind {
        case .csv: schema.columns
        case .json: [SinkTableLayout.recordColumn]
        }
    }

    /// The content hash of a row whose ``columns(_:_:)`` hold `values` and whose `listsync_hash`
    /// is `stored`.
    ///
    /// - Throws: ``SinkError/diverged(_:)`` when a JSON record column does not hold one JSON
    ///   value.
    mutating func contentHash(of values: [String?], stored: ContentHash) throws(SinkError) -> ContentHash {
        switch self.kind {
        case .csv:
            let fields = values.lazy.map { $0 ?? "" }
            if let csv = self.csv { return csv.contentHash(of: fields) }
            for delimiter in CSVDelimiter.allCases {
                let hasher = CSVRecordHasher(columns: self.schema, delimiter: delimiter)
                if hasher.contentHash(of: fields) == stored {
                    self.csv = hasher
                    return stored
                }
            }
            return CSVRecordHasher(columns: self.schema, delimiter: .comma).contentHash(of: fields)
        case .json:
            let text = values.first.flatMap { $0 } ?? ""
            guard let records = try? ListReader(options: ReadOptions(format: .json)).read(bytes: Array("[\(text)]".utf8)).document.allRecords,
                records.count == 1, let record = records.first
            else { throw .diverged("a row's \(SinkTableLayout.recordColumn) is not one JSON value") }
            return record.contentHash
        }
    }
}
