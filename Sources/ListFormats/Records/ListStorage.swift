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

    /// The value of `record`, decoded from the file. O(record length).
    func value(of record: ListRecord) -> ListValue {
        withRecordBytes(record) { bytes in
            switch encoding {
            case .csv(let layout):
                CSVRecordDecoder(layout: layout).value(ofRow: bytes)
            case .json(_):
                JSONValueDecoder.value(of: bytes)
            }
        }
    }
}

/// The record format of a list, with what decoding a record needs.
enum RecordEncoding: Sendable {
    /// CSV rows; values are objects of strings in header order.
    case csv(CSVLayout)
    /// JSON values, keyed by the values at `key` (empty: no key).
    case json(key: [FieldPath])

    /// Whether records have a key.
    var isKeyed: Bool {
        switch self {
        case .csv(let layout): !layout.key.isEmpty
        case .json(let key): !key.isEmpty
        }
    }
}

/// What decoding a CSV row needs.
struct CSVLayout: Sendable {
    var delimiter: UInt8
    var header: [String]
    /// The key columns, in key order (empty: no key).
    var key: [Int]
}
