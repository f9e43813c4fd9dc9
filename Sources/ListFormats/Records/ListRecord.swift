/// One record of a list: where it is in the file, its identity and a hash of
/// its content — diffable by `ListDiff` as is.
///
/// A record is 40 plain bytes whatever its size, with no reference to its
/// list: identity and content are hashed while the file is read, arrays of
/// records are copied and freed without reference counting, and the diff
/// engine never needs more. A record is a handle into the ``ParsedList`` it
/// comes from: its value, bytes and key values are the list's to give
/// (``ParsedList/value(of:)``, ``ParsedList/sourceBytes(of:)``,
/// ``ParsedList/keyComponents(of:)``).
public struct ListRecord: Sendable, BitwiseCopyable {
    /// The record's identity: a stable hash of its key, or its content when
    /// the list has no key.
    public let differenceIdentifier: RecordIdentity

    /// The stable 128-bit hash of the record's content (without ignored
    /// fields).
    public let contentHash: ContentHash

    /// The record's first byte in the file (files are below 4 GiB).
    @usableFromInline let start: UInt32

    /// The record's length in bytes.
    @usableFromInline let length: UInt32

    init(start: Int, end: Int, identity: RecordIdentity, content: ContentHash) {
        self.start = UInt32(start)
        self.length = UInt32(end - start)
        self.differenceIdentifier = identity
        self.contentHash = content
    }

    /// The offset of the record's first byte in the file.
    public var byteOffset: Int {
        Int(start)
    }

    /// The record's bytes in the file (for CSV, the row without its line
    /// ending).
    public var byteRange: Range<Int> {
        Int(start)..<Int(start) + Int(length)
    }
}
