/// Everything about a record except the list it belongs to, packed into 40
/// bytes: a ``ListRecord`` is its storage and a slot, 48 bytes.
@usableFromInline
struct RecordSlot: Sendable {
    /// XXH3-64 of the identity's canonical bytes (or the low half of its
    /// 128-bit hash).
    @usableFromInline let keyHash: UInt64
    /// The record's content hash.
    @usableFromInline let content: ContentHash
    /// The record's first byte in the file (files are below 4 GiB).
    @usableFromInline let start: UInt32
    /// The record's length in bytes.
    @usableFromInline let length: UInt32
    /// Where the identity's bytes are.
    @usableFromInline let key: KeyReference

    init(start: Int, length: Int, key: KeyReference, keyHash: UInt64, content: ContentHash) {
        self.start = UInt32(start)
        self.length = UInt32(length)
        self.key = key
        self.keyHash = keyHash
        self.content = content
    }

    /// The slot with its key moved `offset` arena slots on (its arena was
    /// appended to another at that slot).
    func movingArenaKey(by offset: UInt32) -> RecordSlot {
        guard key.isInArena || (key.isHash && !key.isContent) else { return self }
        return RecordSlot(
            start: Int(start), length: Int(length), key: KeyReference(offset: key.offset + offset, packed: key.packed),
            keyHash: keyHash, content: content)
    }

    /// The record's byte range in the file.
    var range: Range<Int> {
        Int(start)..<Int(start) + Int(length)
    }
}
