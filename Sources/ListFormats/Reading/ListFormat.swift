/// The shape of a list file.
public enum ListFormat: Hashable, Sendable {
    /// Comma- (or otherwise) separated values with a header row (RFC 4180).
    case csv(delimiter: CSVDelimiter)

    /// A JSON array of records, or an object whose members are arrays of
    /// records (a sectioned list).
    case json

    /// Newline-delimited JSON: one record per line.
    case ndjson

    /// The format a file's extension implies: `.csv` (comma), `.tsv` and
    /// `.tab` (tab), `.json`, `.ndjson` and `.jsonl`; case-insensitive.
    /// `nil` for any other extension.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "csv": self = .csv(delimiter: .comma)
        case "tsv", "tab": self = .csv(delimiter: .tab)
        case "json": self = .json
        case "ndjson", "jsonl": self = .ndjson
        default: return nil
        }
    }

    /// Whether the file has a header row whose columns are identified by
    /// position (CSV), rather than records that name their members (JSON).
    public var hasHeader: Bool {
        if case .csv = self { return true }
        return false
    }
}
