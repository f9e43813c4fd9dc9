/// The identity of a record: the canonical bytes of its key fields, or — for
/// records without a key — a 128-bit hash of its content.
///
/// Hashing feeds one precomputed stable 64-bit hash (O(1)); equality compares
/// that hash, then the key bytes exactly. Identities from different lists
/// compare by value, which is what diffing two versions of a file needs.
public struct RecordIdentity: Hashable, Sendable {
    @usableFromInline let storage: ListStorage
    @usableFromInline let key: KeyReference

    /// A stable 64-bit hash of the identity (XXH3-64 of its canonical bytes):
    /// the same in every process and on every machine.
    public let stableHash: UInt64

    @usableFromInline
    init(storage: ListStorage, stableHash: UInt64, key: KeyReference) {
        self.storage = storage
        self.stableHash = stableHash
        self.key = key
    }

    /// Feeds the precomputed hash. O(1).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(stableHash)
    }

    /// Whether the identities are equal: same hash, then same bytes.
    /// O(key length).
    @inlinable
    public static func == (lhs: RecordIdentity, rhs: RecordIdentity) -> Bool {
        guard lhs.stableHash == rhs.stableHash else { return false }
        if lhs.storage === rhs.storage, lhs.key == rhs.key { return true }
        return sameKeyBytes(lhs, rhs)
    }

    @usableFromInline
    static func sameKeyBytes(_ lhs: RecordIdentity, _ rhs: RecordIdentity) -> Bool {
        lhs.storage.withBuffers { lhsSource, lhsArena in
            rhs.storage.withBuffers { rhsSource, rhsArena in
                KeyReference.equal(lhs.key, in: lhsSource, lhsArena, rhs.key, in: rhsSource, rhsArena)
            }
        }
    }

    /// The key's canonical bytes: for one key field its value (CSV: the
    /// unquoted field; JSON: the value as canonical JSON text); for several,
    /// each value preceded by its length as 4 little-endian bytes. Empty for
    /// records without a key.
    public var keyBytes: [UInt8] {
        storage.keyBytes(key)
    }

    /// The key field values as text (CSV: the field; JSON: canonical JSON
    /// text), or empty for records without a key.
    public var keyComponents: [String] {
        KeyCanonicalForm.components(of: keyBytes, fieldCount: key.isHashed ? 0 : storage.keyFieldCount)
            .map { String(decoding: $0, as: UTF8.self) }
    }
}

extension RecordIdentity: CustomStringConvertible {
    /// The key values joined with `, `, or `#` and the content hash for
    /// records without a key.
    public var description: String {
        guard !key.isHashed else {
            return "#" + ContentHash(low: stableHash, high: UInt64(UInt(bitPattern: key.offset))).description
        }
        return keyComponents.joined(separator: ", ")
    }
}
