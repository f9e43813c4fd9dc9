/// The identity of a record: the canonical bytes of its key fields, or — for
/// records without a key — a 128-bit hash of its content.
///
/// Hashing feeds one precomputed stable 64-bit hash (O(1)); equality compares
/// that hash, then the key bytes exactly. Identities from different lists
/// compare by value, which is what diffing two versions of a file needs.
///
/// An identity is 24 plain bytes that point into the bytes of the list it
/// comes from: copying and comparing identities — what the diff engine does
/// for every record — costs no reference counting. Use an identity while
/// that list, or one of its records, is alive.
public struct RecordIdentity: Hashable, @unchecked Sendable, BitwiseCopyable {
    /// A stable 64-bit hash of the identity (XXH3-64 of its canonical bytes):
    /// the same in every process and on every machine.
    public let stableHash: UInt64

    /// The key's canonical bytes; `nil` when the identity is a hash.
    @usableFromInline let keyBytesStart: UnsafeRawPointer?

    /// For a key: its byte count, and its field count in the high 32 bits.
    /// For a hash: its high 64 bits.
    @usableFromInline let word: UInt64

    /// The identity of the record in `slot` of `storage`.
    @inlinable
    init(slot: RecordSlot, storage: ListStorage) {
        stableHash = slot.keyHash
        let key = slot.key
        if key.isContent {
            keyBytesStart = nil
            word = slot.content.high
        } else if key.isHash {
            keyBytesStart = nil
            word = storage.arena.address(ofSlot: key.offset).loadUnaligned(as: UInt64.self)
        } else {
            keyBytesStart =
                key.isInArena
                ? storage.arena.address(ofSlot: key.offset)
                : storage.sourceBase.unsafelyUnwrapped + Int(key.offset)
            word = UInt64(key.count) | UInt64(storage.keyFieldCount) << 32
        }
    }

    /// Feeds the precomputed hash. O(1).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(stableHash)
    }

    /// The hash value that `Set`, `Dictionary` and the diff engine use: the
    /// precomputed hash mixed with `seed` (a 64-bit finalizer, MurmurHash3's),
    /// in a few instructions rather than a round of SipHash per identity.
    /// The stable hash is already uniform; and any two identities with equal
    /// stable hashes collide through `Hasher` too, so this is no weaker.
    @inlinable
    public func _rawHashValue(seed: Int) -> Int {
        var bits = stableHash ^ UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15
        bits ^= bits >> 33
        bits &*= 0xFF51_AFD7_ED55_8CCD
        bits ^= bits >> 33
        bits &*= 0xC4CE_B9FE_1A85_EC53
        bits ^= bits >> 33
        return Int(truncatingIfNeeded: bits)
    }

    /// Whether the identities are equal: same hash, then same bytes.
    /// O(key length).
    @inlinable
    public static func == (lhs: RecordIdentity, rhs: RecordIdentity) -> Bool {
        guard lhs.stableHash == rhs.stableHash, lhs.word == rhs.word else { return false }
        guard let left = lhs.keyBytesStart, let right = rhs.keyBytesStart else {
            return lhs.keyBytesStart == nil && rhs.keyBytesStart == nil
        }
        return left == right || sameBytes(left, right, count: Int(truncatingIfNeeded: lhs.word & 0xFFFF_FFFF))
    }

    /// Whether `count` bytes at `left` and `right` are equal; keys are short,
    /// so eight at a time rather than a call to `memcmp`.
    @inlinable
    static func sameBytes(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset &+ 8 <= count {
            guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset &+= 8
        }
        while offset < count {
            guard left.load(fromByteOffset: offset, as: UInt8.self) == right.load(fromByteOffset: offset, as: UInt8.self)
            else { return false }
            offset &+= 1
        }
        return true
    }

    /// The key's canonical bytes: for one key field its value (CSV: the
    /// unquoted field; JSON: the value as canonical JSON text); for several,
    /// each value preceded by its length as 4 little-endian bytes. Empty for
    /// records without a key.
    public var keyBytes: [UInt8] {
        guard let keyBytesStart else { return [] }
        return Array(UnsafeRawBufferPointer(start: keyBytesStart, count: Int(truncatingIfNeeded: word & 0xFFFF_FFFF)))
    }

    /// The key field values as text (CSV: the field; JSON: canonical JSON
    /// text), or empty for records without a key.
    public var keyComponents: [String] {
        KeyCanonicalForm.components(of: keyBytes, fieldCount: keyBytesStart == nil ? 0 : Int(word >> 32))
            .map { String(decoding: $0, as: UTF8.self) }
    }
}

extension RecordIdentity: CustomStringConvertible {
    /// The key values joined with `, `, or `#` and the content hash for
    /// records without a key.
    public var description: String {
        guard keyBytesStart != nil else { return "#" + ContentHash(low: stableHash, high: word).description }
        return keyComponents.joined(separator: ", ")
    }
}
