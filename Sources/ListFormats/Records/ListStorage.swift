/// The bytes behind a parsed list, shared by all of its records.
///
/// Records are slices of the file: a record keeps its storage alive and
/// decodes its value from the file only when asked.
@usableFromInline
final class ListStorage: Sendable {
    /// The file's bytes.
    let source: [UInt8]

    /// Canonical key bytes the reader had to build.
    let arena = KeyArena()

    /// How to turn a record's bytes into a value.
    let encoding: RecordEncoding

    /// How many fields make up a key; 0 when records have no key.
    let keyFieldCount: Int

    init(source: [UInt8], encoding: RecordEncoding, keyFieldCount: Int) {
        self.source = source
        self.encoding = encoding
        self.keyFieldCount = keyFieldCount
    }

    /// Calls `body` with the file's and the arena's bytes.
    @inline(__always)
    func withBuffers<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        source.withUnsafeBytes { source in body(source, arena.bytes) }
    }

    /// A copy of the canonical bytes of `key` (empty for hashed keys).
    func keyBytes(_ key: KeyReference) -> [UInt8] {
        withBuffers { source, arena in Array(key.bytes(source: source, arena: arena)) }
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
