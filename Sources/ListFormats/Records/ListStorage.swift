import CListFormatsScan

/// The bytes behind a parsed list, and what decoding its records needs.
///
/// Records are slices of the file that the list decodes only when asked
/// (``ParsedList/value(of:)``).
final class ListStorage: Sendable {
    /// The file's bytes.
    let source: [UInt8]

    /// How to turn a record's bytes into a value.
    let encoding: RecordEncoding

    init(source: [UInt8], encoding: RecordEncoding) {
        self.source = source
        self.encoding = encoding
    }

    /// The bytes of `record`, which must be one of this list's.
    func withRecordBytes<R>(_ record: ListRecord, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let range = record.byteRange
        precondition(range.upperBound <= source.count, "a record of another list")
        return source.withUnsafeBufferPointer { source in body(UnsafeBufferPointer(rebasing: source[range])) }
    }

    /// The value of `record` as published: decoded from the file, without the fields the options
    /// ignore — exactly what its content hash covers, so snapshots, changesets, mirrors and
    /// `listsync parse` all show the same list. O(record length).
    func value(of record: ListRecord) -> ListValue {
        publishedValue(decodedValue(of: record))
    }

    /// `value`, a record's ``decodedValue(of:)``, without the ignored fields. O(value size).
    func publishedValue(_ value: ListValue) -> ListValue {
        switch encoding {
        case .csv(let layout):
            guard layout.ignored.contains(true), case .object(let members) = value else { return value }
            return .object(zip(members, layout.ignored).filter { !$0.1 }.map(\.0))
        case .json(_, let ignore):
            return value.removing(ignore)
        }
    }

    /// The value of `record` with every field the file has, ignored ones too: what its key is
    /// read from. O(record length).
    func decodedValue(of record: ListRecord) -> ListValue {
        withRecordBytes(record) { bytes in
            switch encoding {
            case .csv(let layout):
                CSVRecordDecoder(layout: layout).value(ofRow: bytes)
            case .json:
                JSONValueDecoder.value(of: bytes)
            }
        }
    }
}

/// The record format of a list, with what decoding a record needs.
enum RecordEncoding: Sendable {
    /// CSV rows; values are objects of strings in header order.
    case csv(CSVLayout)
    /// JSON values, keyed by the values at `key` (empty: no key), published without the fields
    /// at `ignore`.
    case json(key: [FieldPath], ignore: [FieldPath])

    /// Whether records have a key.
    var isKeyed: Bool {
        switch self {
        case .csv(let layout): !layout.key.isEmpty
        case .json(let key, _): !key.isEmpty
        }
    }
}

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
