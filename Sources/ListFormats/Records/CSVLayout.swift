import CListFormatsScan

/// What decoding a CSV row needs.
struct CSVLayout: Sendable {
    var delimiter: UInt8
    /// The whole header, ignored columns too.
    var header: [String]
    /// The key columns, in key order (empty: no key).
    var key: [Int]
    /// Which columns are ignored: left out of published values.
    var ignored: [Bool]
    /// What seals the content hashes (``contentHash(ofRow:)``).
    var headerSeed: UInt64

    /// The content hash of a record whose canonical row — its published fields with minimal
    /// quoting — hashes to `row` (`listsync_csv_content_hash`).
    func contentHash(ofRow row: ContentHash) -> ContentHash {
        let hash = listsync_csv_content_hash(listsync_hash128(low: row.low, high: row.high), headerSeed)
        return ContentHash(low: hash.low, high: hash.high)
    }
}
