/// Everything about a record except the list it belongs to, packed into 48
/// bytes: a ``ListRecord`` is its storage and a slot.
@usableFromInline
struct RecordSlot: Sendable {
    /// The record's first byte in the file.
    @usableFromInline let start: Int
    /// See ``KeyReference/offset``.
    @usableFromInline let keyOffset: Int
    /// XXH3-64 of the identity's canonical bytes (or the low half of its
    /// 128-bit hash).
    @usableFromInline let keyHash: UInt64
    /// The record's content hash.
    @usableFromInline let content: ContentHash
    /// The record's length in bytes (files are below 4 GiB).
    @usableFromInline let length: UInt32
    /// See ``KeyReference/packed``.
    @usableFromInline let keyPacked: UInt32

    init(start: Int, length: Int, key: KeyReference, keyHash: UInt64, content: ContentHash) {
        self.start = start
        self.length = UInt32(length)
        self.keyOffset = key.offset
        self.keyPacked = key.packed
        self.keyHash = keyHash
        self.content = content
    }

    @usableFromInline
    var key: KeyReference {
        KeyReference(offset: keyOffset, packed: keyPacked)
    }
}
