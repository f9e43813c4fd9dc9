/// Where the bytes of a record's identity are, packed into 8 bytes.
///
/// - `source`: a slice of the file (an unquoted CSV field, a JSON string
///   without escapes) — nothing copied.
/// - `arena`: canonical bytes the reader built (composite keys, decoded
///   escapes), stored in the list's ``KeyArena``.
/// - `content`: no key; the identity is the record's content hash.
/// - `hashed`: a key too long to reference (2 GiB or more); the identity is
///   a 128-bit hash of its bytes, whose high half is in the arena.
@usableFromInline
struct KeyReference: Hashable, Sendable {
    /// The byte offset in the file, or the arena slot (see ``KeyArena``).
    @usableFromInline let offset: UInt32

    /// Bit 31 set for `arena`, the byte count in bits 0–30; or one of the
    /// markers for `content` and `hashed`.
    @usableFromInline let packed: UInt32

    @usableFromInline static let arenaBit: UInt32 = 1 << 31
    @usableFromInline static let contentMarker = UInt32.max
    @usableFromInline static let hashedMarker = UInt32.max - 1

    /// The longest key that is referenced rather than hashed (its packed form
    /// stays clear of the markers).
    static let maximumCount = Int(arenaBit) - 3

    @usableFromInline
    init(offset: UInt32, packed: UInt32) {
        self.offset = offset
        self.packed = packed
    }

    static func source(offset: Int, count: Int) -> KeyReference {
        precondition(count <= maximumCount && offset <= Int(UInt32.max), "key outside what a reference holds")
        return KeyReference(offset: UInt32(offset), packed: UInt32(count))
    }

    static func arena(slot: UInt32, count: Int) -> KeyReference {
        precondition(count <= maximumCount, "key too long to reference")
        return KeyReference(offset: slot, packed: UInt32(count) | arenaBit)
    }

    static let content = KeyReference(offset: 0, packed: contentMarker)

    static func hashed(slot: UInt32) -> KeyReference {
        KeyReference(offset: slot, packed: hashedMarker)
    }

    /// Whether the identity is a hash (`content` or `hashed`), not bytes.
    @inlinable var isHash: Bool { packed >= Self.hashedMarker }
    @inlinable var isContent: Bool { packed == Self.contentMarker }
    @inlinable var isInArena: Bool { !isHash && packed & Self.arenaBit != 0 }
    @inlinable var count: Int { isHash ? 0 : Int(packed & ~Self.arenaBit) }
}
