#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How the bytes of a watched file changed from one saved version to the next, as one
/// replacement: keep the first ``prefix`` bytes, replace the ``removed`` bytes after them with
/// ``inserted``, keep the rest. What ``DeltaJournal`` records per version instead of the whole
/// file, so that saving a one-row edit of a large file writes about a row, not the file.
///
/// One replacement covers everything between the first and the last changed byte: an edit, an
/// insert, a delete or an append is as small as what changed; edits far apart make one large
/// replacement (at most the file), which only brings the next full checkpoint nearer.
struct ByteDelta: Sendable, Equatable {
    /// The bytes both versions start with.
    var prefix: Int
    /// How many bytes of the old version after ``prefix`` are replaced.
    var removed: Int
    /// What replaces them.
    var inserted: ArraySlice<UInt8>

    init(prefix: Int, removed: Int, inserted: ArraySlice<UInt8>) {
        self.prefix = prefix
        self.removed = removed
        self.inserted = inserted
    }

    /// The replacement that turns `old` into `new`: their common start and end are kept.
    ///
    /// `known` says how many bytes the two share at the start and at the end without comparing
    /// them (the chunks the incremental reader kept, ``UnchangedByteEnds``): the comparisons
    /// start from there. The delta is the one found by comparing every byte, provided `known`
    /// is true (debug builds check it): the common start is the longest, and the common end the
    /// longest within what the start leaves.
    ///
    /// - Complexity: O(*n*) comparisons at memory speed (`memcmp` in pages), no copy of either;
    ///   O(bytes between the known ends) with them.
    init(from old: [UInt8], to new: [UInt8], known: (prefix: Int, suffix: Int) = (0, 0)) {
        let limit = min(old.count, new.count)
        let knownPrefix = min(max(known.prefix, 0), limit)
        let knownSuffix = min(max(known.suffix, 0), limit - knownPrefix)
        let (prefix, suffix) = old.withUnsafeBytes { old in
            new.withUnsafeBytes { new in
                let prefix = Self.commonCount(old, new, limit: limit, fromEnd: false, from: knownPrefix)
                return (prefix, Self.commonCount(old, new, limit: limit - prefix, fromEnd: true, from: min(knownSuffix, limit - prefix)))
            }
        }
        self.init(prefix: prefix, removed: old.count - prefix - suffix, inserted: new[prefix..<(new.count - suffix)])
        assert(known == (0, 0) || self == ByteDelta(from: old, to: new), "ByteDelta: the known ends are not equal bytes")
    }

    /// How many bytes `a` and `b` have in common from their start (or their end), at most
    /// `limit`, given that the first (or last) `known` are.
    private static func commonCount(
        _ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, limit: Int, fromEnd: Bool, from known: Int
    ) -> Int {
        guard limit > 0, let aBase = a.baseAddress, let bBase = b.baseAddress else { return 0 }
        let page = 4096
        var common = known
        func offsets(_ count: Int) -> (Int, Int) {
            fromEnd ? (a.count - common - count, b.count - common - count) : (common, common)
        }
        while limit - common >= page {
            let (x, y) = offsets(page)
            guard memcmp(aBase + x, bBase + y, page) == 0 else { break }
            common += page
        }
        while common < limit {
            let (x, y) = offsets(1)
            guard a[x] == b[y] else { break }
            common += 1
        }
        return common
    }
}
