/// What a reader counted while reading a list, so that callers can warn.
public struct ReadReport: Hashable, Sendable {
    /// Records read.
    public var recordCount = 0

    /// Sections (0 for a linear list).
    public var sectionCount = 0

    /// Records whose identity equals an earlier record's. The diff engine
    /// handles them (first come, first served), but they usually mean the key
    /// is not unique.
    public var duplicateCount = 0

    /// The byte offset of the first record whose identity was already taken.
    public var firstDuplicateOffset: Int?

    /// Blank lines skipped (CSV and NDJSON).
    public var blankLineCount = 0

    /// CSV rows padded with empty fields (``RaggedRowPolicy/pad``).
    public var paddedRowCount = 0

    /// CSV rows whose extra fields were dropped (``RaggedRowPolicy/truncate``).
    public var truncatedRowCount = 0

    /// Whether the file started with a UTF-8 byte-order mark (skipped).
    public var hadByteOrderMark = false

    /// Creates an empty report.
    public init() {}

    /// Adds the line and row counts of `other`, the report of a later part
    /// of the same file (``SplitRead``).
    mutating func add(_ other: ReadReport) {
        blankLineCount += other.blankLineCount
        paddedRowCount += other.paddedRowCount
        truncatedRowCount += other.truncatedRowCount
    }
}
