/// The bytes behind a parsed list, shared by all of its records.
///
/// Records are slices of the file: a record keeps its storage alive and
/// decodes its value from the file only when asked. Record identities point
/// into these bytes (see ``RecordIdentity``).
@usableFromInline
final class ListStorage: @unchecked Sendable {
    /// The file's bytes.
    let source: [UInt8]

    /// The first byte of `source` (`nil` when empty). The array is never
    /// mutated, so its storage stays where it is for the life of the list;
    /// nothing else is ever written (hence `@unchecked Sendable`).
    @usableFromInline let sourceBase: UnsafeRawPointer?

    /// Canonical key bytes the reader had to build.
    @usableFromInline let arena = KeyArena()

    /// How to turn a record's bytes into a value.
    let encoding: RecordEncoding

    /// How many fields make up a key; 0 when records have no key.
    @usableFromInline let keyFieldCount: Int

    init(source: [UInt8], encoding: RecordEncoding, keyFieldCount: Int) {
        self.source = source
        self.sourceBase = source.isEmpty ? nil : source.withUnsafeBytes { $0.baseAddress }
        self.encoding = encoding
        self.keyFieldCount = keyFieldCount
    }

    /// The bytes of the record in `slot`.
    func withRecordBytes<R>(_ slot: RecordSlot, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        source.withUnsafeBufferPointer { source in body(UnsafeBufferPointer(rebasing: source[slot.range])) }
    }
}

/// The record format of a list, with what decoding a record needs.
enum RecordEncoding: Sendable {
    /// CSV rows; values are objects of strings in header order.
    case csv(CSVLayout)
    /// JSON values.
    case json
}

/// What decoding a CSV row needs.
struct CSVLayout: Sendable {
    var delimiter: UInt8
    var header: [String]
}
