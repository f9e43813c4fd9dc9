#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the bytes of a record's identity are, packed into 12 bytes.
///
/// - `source`: a slice of the file (an unquoted CSV field, a JSON string
///   without escapes) — nothing copied.
/// - `arena`: canonical bytes the reader built (composite keys, decoded
///   escapes), stored in the list's key arena.
/// - `hashed`: no bytes at all; the identity is a 128-bit hash whose high
///   half is kept in `offset` (records without a key, whose identity is their
///   content, and keys too long to reference).
@usableFromInline
struct KeyReference: Hashable, Sendable {
    /// Byte offset in the source or arena, or the high half of a 128-bit hash.
    @usableFromInline let offset: Int

    /// `UInt32.max` for `hashed`; otherwise bit 31 set for `arena`, and the
    /// byte count in bits 0–30.
    @usableFromInline let packed: UInt32

    private static let arenaBit: UInt32 = 1 << 31
    private static let hashedMarker = UInt32.max

    /// The longest key that is referenced rather than hashed.
    static let maximumCount = Int(arenaBit - 1)

    @usableFromInline
    init(offset: Int, packed: UInt32) {
        self.offset = offset
        self.packed = packed
    }

    static func source(offset: Int, count: Int) -> KeyReference {
        precondition(count <= maximumCount, "key too long to reference")
        return KeyReference(offset: offset, packed: UInt32(count))
    }

    static func arena(offset: Int, count: Int) -> KeyReference {
        precondition(count <= maximumCount, "key too long to reference")
        return KeyReference(offset: offset, packed: UInt32(count) | arenaBit)
    }

    static func hashed(high: UInt64) -> KeyReference {
        KeyReference(offset: Int(bitPattern: UInt(high)), packed: hashedMarker)
    }

    var isHashed: Bool { packed == Self.hashedMarker }
    var isInArena: Bool { !isHashed && packed & Self.arenaBit != 0 }
    var count: Int { isHashed ? 0 : Int(packed & ~Self.arenaBit) }

    /// The key's bytes, given the file and the arena; empty for `hashed`.
    @inline(__always)
    func bytes(source: UnsafeRawBufferPointer, arena: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard !isHashed else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let buffer = isInArena ? arena : source
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }

    /// Whether two keys with equal 64-bit hashes are the same key.
    static func equal(
        _ lhs: KeyReference, in lhsSource: UnsafeRawBufferPointer, _ lhsArena: UnsafeRawBufferPointer,
        _ rhs: KeyReference, in rhsSource: UnsafeRawBufferPointer, _ rhsArena: UnsafeRawBufferPointer
    ) -> Bool {
        if lhs.isHashed || rhs.isHashed {
            return lhs.isHashed && rhs.isHashed && lhs.offset == rhs.offset
        }
        guard lhs.count == rhs.count else { return false }
        let left = lhs.bytes(source: lhsSource, arena: lhsArena)
        let right = rhs.bytes(source: rhsSource, arena: rhsArena)
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
        return memcmp(leftBase, rightBase, left.count) == 0
    }
}
