/// How the canonical bytes of a composite key are laid out: each field's
/// bytes preceded by their count as a 4-byte little-endian integer. A key of
/// one field is just that field's bytes.
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

    /// Splits canonical key bytes into the fields' bytes.
    static func components(of bytes: [UInt8], fieldCount: Int) -> [ArraySlice<UInt8>] {
        guard fieldCount > 1 else { return fieldCount == 1 ? [bytes[...]] : [] }
        var components: [ArraySlice<UInt8>] = []
        var index = 0
        while index + 4 <= bytes.count {
            var length = 0
            for shift in 0..<4 { length |= Int(bytes[index + shift]) << (8 * shift) }
            index += 4
            let end = min(index + length, bytes.count)
            components.append(bytes[index..<end])
            index = end
        }
        return components
    }
}
