import CListFormatsScan
import DurableFiles

/// The bytes behind a parsed list, and what decoding its records needs.
///
/// Records are slices of the file that the list decodes only when asked
/// (``ParsedList/value(of:)``).
final class ListStorage: Sendable {
    /// The file's bytes.
    let source: ListSource

    /// How to turn a record's bytes into a value.
    let encoding: RecordEncoding

    init(source: ListSource, encoding: RecordEncoding) {
        self.source = source
        self.encoding = encoding
    }

    convenience init(source: [UInt8], encoding: RecordEncoding) {
        self.init(source: .bytes(FileBytes(source)), encoding: encoding)
    }

    convenience init(source: FileBytes, encoding: RecordEncoding) {
        self.init(source: .bytes(source), encoding: encoding)
    }

    /// The bytes of `record`, which must be one of this list's: in place, in the piece of the
    /// file's bytes that holds it (copied only when it straddles two pieces, which no record of
    /// a list the ``IncrementalListReader`` read does).
    func withRecordBytes<R>(_ record: ListRecord, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let range = record.byteRange
        precondition(range.upperBound <= source.count, "a record of another list")
        return source.withContiguousBytes(in: range, body)
    }

    /// The value of `record` as published: decoded from the file, without the fields the options
    /// ignore — exactly what its content hash covers, so snapshots, changesets, mirrors and
    /// `listsync parse` all show the same list. O(record length).
    func value(of record: ListRecord) -> ListValue {
        publishedValue(decodedValue(of: record))
    }

    /// Appends the value of `record` as published (``value(of:)``) as compact JSON, in the bytes
    /// `JSONValueEncoder.append(value(of: record))` writes; a CSV record's straight from its row,
    /// without building the value. O(record length).
    func appendPublishedJSON(of record: ListRecord, to output: inout [UInt8]) {
        guard case .csv(let layout) = encoding else {
            JSONValueEncoder.append(value(of: record), to: &output)
            return
        }
        withRecordBytes(record) { bytes in CSVRecordDecoder(layout: layout).appendPublishedJSON(ofRow: bytes, to: &output) }
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
