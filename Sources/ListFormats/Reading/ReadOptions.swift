/// How to read a list: its format, what identifies a record, what groups
/// records into sections, what content to leave out, and the limits.
///
/// Field names are CSV column names, or for JSON either a top-level member
/// name (`"id"`) or a JSON Pointer (`"/meta/id"`, RFC 6901). For CSV a
/// one-token pointer such as `"/id"` also names the column `id`.
public struct ReadOptions: Hashable, Sendable {
    /// The file's format.
    public var format: ListFormat

    /// The fields whose values together identify a record. Empty: the whole
    /// record (its content) is its identity, so equal records are duplicates.
    public var key: [String]

    /// The field whose value groups records into sections, in order of first
    /// appearance. `nil`: a JSON object of arrays is sectioned by member name,
    /// anything else is one linear list.
    public var sectionBy: String?

    /// Fields left out of the content comparison (for example `updated_at`).
    public var ignore: [String]

    /// What to do with CSV rows that have more or fewer fields than the header.
    public var raggedRows: RaggedRowPolicy

    /// The largest file, in bytes, that the reader accepts; larger files fail
    /// with ``ListFormatError/fileTooLarge(size:limit:)`` before they are read.
    /// Values above ``maximumSizeLimit`` count as ``maximumSizeLimit``.
    public var sizeLimit: Int

    /// How deeply JSON values may nest inside a record before the reader
    /// refuses the file (a guard against stack exhaustion).
    public var maxNestingDepth: Int

    /// ``maxNestingDepth``'s default: what the daemon accepts in a watched file. The protocol's
    /// decoder allows this plus the depth of a message's envelope
    /// (`MessageParser.envelopeDepth`), so that every client decodes whatever the daemon publishes.
    public static let defaultMaxNestingDepth = 512

    /// The largest file any reader accepts: 4 GiB − 1, so that record offsets
    /// and lengths fit in 32 bits.
    public static let maximumSizeLimit = Int(UInt32.max)

    /// Creates options; only the format is required.
    public init(
        format: ListFormat,
        key: [String] = [],
        sectionBy: String? = nil,
        ignore: [String] = [],
        raggedRows: RaggedRowPolicy = .error,
        sizeLimit: Int = ReadOptions.maximumSizeLimit,
        maxNestingDepth: Int = ReadOptions.defaultMaxNestingDepth
    ) {
        self.format = format
        self.key = key
        self.sectionBy = sectionBy
        self.ignore = ignore
        self.raggedRows = raggedRows
        self.sizeLimit = sizeLimit
        self.maxNestingDepth = maxNestingDepth
    }

    /// The size limit actually applied.
    var effectiveSizeLimit: Int {
        min(max(sizeLimit, 0), Self.maximumSizeLimit)
    }
}
