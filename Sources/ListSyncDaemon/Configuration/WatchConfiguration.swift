import ListFormats

/// One `[[watch]]` entry of the configuration: a list-shaped file the daemon serves under a name.
///
/// Every value is resolved: `path` is absolute and lexically normalised, `format` is known
/// (inferred from the extension when the file did not say), `delimiter` is the one in effect. Two watches are therefore equal
/// exactly when the daemon would treat them the same way, which is what ``ConfigurationChanges``
/// relies on.
public struct WatchConfiguration: Sendable, Hashable {
    /// The file formats a watch can have.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Comma-separated values with a header line.
        case csv
        /// Tab-separated values with a header line.
        case tsv
        /// A JSON array of records, or an object whose members are arrays of records (sections).
        case json
        /// One JSON record per line.
        case ndjson

        /// The format implied by the extension of `path` (`.csv`, `.tsv`, `.json`, `.ndjson`,
        /// `.jsonl`; case-insensitive), or `nil` when the extension says nothing.
        public init?(pathExtensionOf path: String) {
            let fileName = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
            guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return nil }
            switch fileName[fileName.index(after: dot)...].lowercased() {
            case "csv": self = .csv
            case "tsv": self = .tsv
            case "json": self = .json
            case "ndjson", "jsonl": self = .ndjson
            default: return nil
            }
        }

        /// The field delimiter a file of this format has unless the watch names another; `nil`
        /// for the JSON formats, which have none.
        public var defaultDelimiter: CSVDelimiter? {
            switch self {
            case .csv: return .comma
            case .tsv: return .tab
            case .json, .ndjson: return nil
            }
        }
    }

    /// The name clients subscribe to: 1 to 64 characters from `A-Z a-z 0-9 . _ -`, not starting
    /// with a dot, so it can also name files in the state directory.
    public var name: String
    /// The absolute, lexically normalised path of the watched file.
    public var path: String
    /// How the file is parsed.
    public var format: Format
    /// The columns (fields) whose values identify a row; composite when more than one.
    /// Empty when the configuration names no key: a row is then identified by its whole content.
    public var key: [String]
    /// The column whose value groups rows into sections, if any.
    public var sectionBy: String?
    /// Columns left out when comparing rows, e.g. an `updated_at` that changes on every save.
    public var ignore: [String]
    /// The field delimiter of a CSV or TSV file: the one the configuration names, else the
    /// format's ``Format/defaultDelimiter``; `nil` for JSON formats.
    public var delimiter: CSVDelimiter?
    /// What to do with CSV rows whose field count differs from the header's (`.error` for JSON
    /// formats, where it has no effect).
    public var raggedRows: RaggedRowPolicy
    /// Whether the file is published while a writer holds it open (`publish_while_writing`): for
    /// a file kept open for good, such as a log appended to. Then it is published every
    /// `settle_while_writing_max_ms` while it changes, without its unterminated last line. By
    /// default (`false`) a file that a writer has modified and still holds open is not published
    /// at all — its status is `writing` — however long the writer takes.
    public var publishWhileWriting: Bool

    /// Creates a watch configuration; the values must already be resolved (see the type's
    /// documentation).
    public init(
        name: String,
        path: String,
        format: Format,
        key: [String] = [],
        sectionBy: String? = nil,
        ignore: [String] = [],
        delimiter: CSVDelimiter? = nil,
        raggedRows: RaggedRowPolicy = .error,
        publishWhileWriting: Bool = false
    ) {
        self.name = name
        self.path = path
        self.format = format
        self.key = key
        self.sectionBy = sectionBy
        self.ignore = ignore
        self.delimiter = format.defaultDelimiter == nil ? nil : delimiter ?? format.defaultDelimiter
        self.raggedRows = raggedRows
        self.publishWhileWriting = publishWhileWriting
    }

    /// Whether `name` is acceptable as a watch name (see ``name``).
    public static func isValidName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard (1...64).contains(utf8.count), utf8.first != UInt8(ascii: ".") else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
