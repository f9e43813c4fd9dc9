/// The sections met so far, found by the canonical bytes of their value.
///
/// Records usually come in runs of the same section, so the last section is
/// checked first; otherwise a stable hash finds it in O(1).
struct SectionTable {
    private(set) var models: [SectionModel] = []
    /// The canonical bytes of each section's value, in the order of ``models``.
    private(set) var canonicalValues: [[UInt8]] = []
    private var indexByHash: [UInt64: Int] = [:]
    private var lastIndex = -1

    var count: Int { models.count }

    /// The index of the section whose value has the canonical bytes `bytes`;
    /// a new section (made with `makeValue`) when there is none yet.
    mutating func index(
        forCanonical bytes: UnsafeRawBufferPointer, makeValue: () -> ListValue
    ) -> (index: Int, isNew: Bool) {
        if lastIndex >= 0, canonicalValues[lastIndex].elementsEqual(bytes) {
            return (lastIndex, false)
        }
        let hash = StableHash.hash64(bytes)
        if let index = indexByHash[hash] {
            if canonicalValues[index].elementsEqual(bytes) {
                lastIndex = index
                return (index, false)
            }
            // A 64-bit collision: fall back to a search.
            if let index = canonicalValues.firstIndex(where: { $0.elementsEqual(bytes) }) {
                lastIndex = index
                return (index, false)
            }
        }
        let index = models.count
        models.append(SectionModel(value: makeValue()))
        canonicalValues.append(Array(bytes))
        if indexByHash[hash] == nil { indexByHash[hash] = index }
        lastIndex = index
        return (index, true)
    }
}
