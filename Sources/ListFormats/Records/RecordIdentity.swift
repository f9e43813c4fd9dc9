/// The identity of a record: a stable 128-bit hash (XXH3-128) of the
/// canonical bytes of its key fields, or — for records without a key — its
/// content hash.
///
/// Identities compare by value across lists, which is what diffing two
/// versions of a file needs, and are the same in every process and on every
/// machine. Like content, keys compare by their 128-bit hash: two different
/// keys are taken for one with a probability of about n²/2¹²⁹ for n records
/// (below 10⁻²⁶ for a billion). In exchange an identity is 16 plain bytes,
/// hashed and compared in a few instructions, which the diff engine does for
/// every record. The key's values are the list's to give
/// (``ParsedList/keyComponents(of:)``).
///
/// A key's canonical bytes: for one key field its value (CSV: the unquoted
/// field; JSON: the value as canonical JSON text); for several, each value
/// preceded by its length as 4 little-endian bytes.
public struct RecordIdentity: Hashable, Sendable, BitwiseCopyable {
    /// The hash.
    public let hash: ContentHash

    /// An identity from its hash.
    @inlinable
    public init(hash: ContentHash) {
        self.hash = hash
    }

    /// Feeds the low half of the hash, which is already uniform. O(1).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash.low)
    }

    /// The hash value that `Set`, `Dictionary` and the diff engine use: the
    /// low half of the hash mixed with `seed` (a 64-bit finalizer,
    /// MurmurHash3's), in a few instructions rather than a round of SipHash
    /// per identity. The stable hash is already uniform; and any two
    /// identities with equal low halves collide through `Hasher` too, so this
    /// is no weaker.
    @inlinable
    public func _rawHashValue(seed: Int) -> Int {
        var bits = hash.low ^ UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15
        bits ^= bits >> 33
        bits &*= 0xFF51_AFD7_ED55_8CCD
        bits ^= bits >> 33
        bits &*= 0xC4CE_B9FE_1A85_EC53
        bits ^= bits >> 33
        return Int(truncatingIfNeeded: bits)
    }
}

extension RecordIdentity: CustomStringConvertible {
    /// `#` and the hash's 32 hex digits.
    public var description: String {
        "#" + hash.description
    }
}
