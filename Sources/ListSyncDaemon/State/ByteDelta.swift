#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import DurableFiles

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
    /// What replaces them: a slice of the new version's bytes (or of the journal file read
    /// back), sharing their storage.
    var inserted: FileBytes

    init(prefix: Int, removed: Int, inserted: FileBytes) {
        self.prefix = prefix
        self.removed = removed
        self.inserted = inserted
    }

    /// The replacement that turns `old` into `new`: their common start and end are kept.
    ///
    /// `known` says how many bytes the two share at the start and at the end without comparing
    /// them (the chunks the incremental reader kept, ``UnchangedByteEnds``, or the stretches a
    /// read shared with the version before): the comparisons start from there. The delta is the
    /// one found by comparing every byte, provided `known` is true (debug builds check it): the
    /// common start is the longest, and the common end the longest within what the start leaves.
    ///
    /// Both versions may be in pieces (``FileBytes``): they are compared piece against piece in
    /// place, and ``inserted`` is a slice of `new` — neither is copied.
    ///
    /// - Complexity: O(*n*) comparisons at memory speed (`memcmp` in pages), no copy of either;
    ///   O(bytes between the known ends) with them.
    init(from old: FileBytes, to new: FileBytes, known: (prefix: Int, suffix: Int) = (0, 0)) {
        let limit = min(old.count, new.count)
        let knownPrefix = min(max(known.prefix, 0), limit)
        let knownSuffix = min(max(known.suffix, 0), limit - knownPrefix)
        let prefix = Self.commonCount(old, new, limit: limit, fromEnd: false, from: knownPrefix)
        let suffix = Self.commonCount(old, new, limit: limit - prefix, fromEnd: true, from: min(knownSuffix, limit - prefix))
        self.init(prefix: prefix, removed: old.count - prefix - suffix, inserted: new[prefix..<(new.count - suffix)])
        assert(known == (0, 0) || self == ByteDelta(from: old, to: new), "ByteDelta: the known ends are not equal bytes")
    }

    /// ``init(from:to:known:)`` of two arrays (each one piece, not copied).
    init(from old: [UInt8], to new: [UInt8], known: (prefix: Int, suffix: Int) = (0, 0)) {
        self.init(from: FileBytes(old), to: FileBytes(new), known: known)
    }

    /// How many bytes `a` and `b` have in common from their start (or their end), at most
    /// `limit`, given that the first (or last) `known` are: compared a stretch at a time, each
    /// stretch lying within one piece of each.
    private static func commonCount(_ a: FileBytes, _ b: FileBytes, limit: Int, fromEnd: Bool, from known: Int) -> Int {
        var common = known
        while common < limit {
            // The next stretch: from the first byte not known common (from the start or the end)
            // to the nearer end of the pieces holding it in each.
            let (x, y) = fromEnd ? (a.count - common - 1, b.count - common - 1) : (common, common)
            let (aPiece, bPiece) = (a.pieceIndex(containing: x), b.pieceIndex(containing: y))
            let aRoom = fromEnd ? x - a.start(ofPiece: aPiece) + 1 : a.start(ofPiece: aPiece) + a.pieces[aPiece].range.count - x
            let bRoom = fromEnd ? y - b.start(ofPiece: bPiece) + 1 : b.start(ofPiece: bPiece) + b.pieces[bPiece].range.count - y
            // A mapped piece a stretch at a time, its pages let go of once compared (issue 19).
            let (aRegion, bRegion) = (a.pieces[aPiece].storage.mappedRegion, b.pieces[bPiece].storage.mappedRegion)
            let stretch = aRegion == nil && bRegion == nil ? Int.max : FileBytes.mappedStretchLength
            let length = min(aRoom, bRoom, limit - common, stretch)
            let aLower = a.pieces[aPiece].range.lowerBound + (fromEnd ? x - length + 1 : x) - a.start(ofPiece: aPiece)
            let bLower = b.pieces[bPiece].range.lowerBound + (fromEnd ? y - length + 1 : y) - b.start(ofPiece: bPiece)
            defer {
                aRegion?.releasePages(in: aLower..<(aLower + length))
                bRegion?.releasePages(in: bLower..<(bLower + length))
            }
            let equal = a.pieces[aPiece].withUnsafeBufferPointer { aBuffer in
                b.pieces[bPiece].withUnsafeBufferPointer { bBuffer in
                    // Where the stretch starts in each piece.
                    let aStart = (fromEnd ? x - length + 1 : x) - a.start(ofPiece: aPiece)
                    let bStart = (fromEnd ? y - length + 1 : y) - b.start(ofPiece: bPiece)
                    return Self.commonCount(
                        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(aBuffer)[aStart..<(aStart + length)]),
                        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bBuffer)[bStart..<(bStart + length)]),
                        fromEnd: fromEnd)
                }
            }
            common += equal
            guard equal == length else { break }
        }
        return common
    }

    /// How many bytes two stretches of the same length have in common from their start (or
    /// their end): `memcmp` a page at a time, then byte by byte.
    private static func commonCount(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, fromEnd: Bool) -> Int {
        guard let aBase = a.baseAddress, let bBase = b.baseAddress else { return 0 }
        // The same bytes of the same storage (a stretch both versions share).
        if aBase == bBase { return a.count }
        let page = 4096
        let count = a.count
        var common = 0
        while count - common >= page {
            let offset = fromEnd ? count - common - page : common
            guard memcmp(aBase + offset, bBase + offset, page) == 0 else { break }
            common += page
        }
        while common < count {
            let offset = fromEnd ? count - common - 1 : common
            guard a[offset] == b[offset] else { break }
            common += 1
        }
        return common
    }
}
