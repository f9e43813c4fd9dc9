/// How the canonical bytes of a composite key are laid out: each field's
/// bytes preceded by their count as a 4-byte little-endian integer. A key of
/// one field is just that field's bytes. A record's identity is the stable
/// hash of these bytes (``RecordIdentity``).
enum KeyCanonicalForm {
    /// Appends the length prefix of a composite key's field, to be filled in
    /// by ``endField(startedAt:in:)``; returns where the prefix is.
    static func beginField(in scratch: inout ByteScratch) -> Int {
        let prefix = scratch.count
        scratch.append(littleEndian: UInt32(0))
        return prefix
    }

    /// Fills in the length prefix written by ``beginField(in:)``.
    static func endField(startedAt prefix: Int, in scratch: inout ByteScratch) {
        scratch.store(littleEndian: UInt32(truncatingIfNeeded: scratch.count - prefix - 4), at: prefix)
    }

    /// Appends the canonical form of a JSON object or array key field: byte
    /// 0x01 and its content hash (low half first, each little-endian), not
    /// its text.
    static func appendContainer(hash: ContentHash, to scratch: inout ByteScratch) {
        scratch.append(0x01)
        scratch.append(littleEndian: hash.low)
        scratch.append(littleEndian: hash.high)
    }
}
