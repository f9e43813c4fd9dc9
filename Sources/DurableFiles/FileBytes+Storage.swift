extension FileBytes {
    /// What a ``Piece`` is a range of: an array in memory, or a read-only mapping of a file
    /// that holds the same bytes (issue 19: a version's bytes served from the state file they
    /// were saved to, resident only while read). Either is shared by every piece cut from it
    /// and never written while held.
    public typealias Storage = ArrayOrMapping<UInt8>
}

extension FileBytes {
    /// Whether any piece is a range of a mapped file region.
    public var holdsMappings: Bool {
        pieces.contains { $0.storage.mappedRegion != nil }
    }

    /// Lets the pages of the mapped regions these bytes hold go from the resident set
    /// (``MappedFileRegion/releasePages()``), each region once; arrays are left as they are.
    /// The bytes stay the same. For a reader done with a large stretch it read once.
    public func releaseMappedPages() {
        var seen = Set<UInt>()
        for piece in pieces {
            guard let region = piece.storage.mappedRegion, seen.insert(piece.storage.address).inserted else { continue }
            region.releasePages()
        }
    }

    /// Lets the pages of the mapped regions that hold bytes `range` go from the resident set
    /// (``MappedFileRegion/releasePages(in:)``); arrays are left as they are. O(pieces in range)
    /// system calls, none for bytes held in arrays.
    public func releaseMappedPages(in range: Range<Int>) {
        guard !range.isEmpty, holdsMappings else { return }
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) out of 0..<\(count)")
        var index = pieceIndex(containing: range.lowerBound)
        while index < pieces.count, start(ofPiece: index) < range.upperBound {
            let piece = pieces[index]
            if let region = piece.storage.mappedRegion {
                let lower = piece.range.lowerBound + max(range.lowerBound - start(ofPiece: index), 0)
                let upper = piece.range.lowerBound + min(range.upperBound - start(ofPiece: index), piece.range.count)
                region.releasePages(in: lower..<upper)
            }
            index += 1
        }
    }

    /// Lets the pages that hold `stretch` go from the resident set when it lies in one of the
    /// mapped regions these bytes hold (``MappedFileRegion/releasePages(holding:)``); nothing
    /// when it does not (an array, or a copy of the bytes: never released, it would be zeroed).
    /// For a parse in place of a version held as a mapping, which releases what it went through.
    public func releaseMappedPages(holding stretch: UnsafeRawBufferPointer) {
        var seen = Set<UInt>()
        for piece in pieces {
            guard let region = piece.storage.mappedRegion, seen.insert(piece.storage.address).inserted else { continue }
            if region.releasePages(holding: stretch) { return }
        }
    }

    /// How long a stretch of a mapped piece ``forEachStretch(_:)`` gives at most.
    public static let mappedStretchLength = 4 << 20

    /// Calls `body` with all the bytes in order, and where each stretch starts: an array's
    /// piece whole, a mapped piece in stretches of at most ``mappedStretchLength`` bytes whose
    /// pages are let go once `body` returns — so that going once through a version held as
    /// mappings (to checksum it, to write it to a slot) keeps only a stretch of it resident.
    public func forEachStretch<E: Error>(_ body: (_ start: Int, _ bytes: UnsafeBufferPointer<UInt8>) throws(E) -> Void) throws(E) {
        for (index, piece) in pieces.enumerated() {
            guard let region = piece.storage.mappedRegion else {
                try piece.withUnsafeBufferPointer { buffer throws(E) in try body(self.start(ofPiece: index), buffer) }
                continue
            }
            var lower = piece.range.lowerBound
            while lower < piece.range.upperBound {
                let upper = min(piece.range.upperBound, lower + Self.mappedStretchLength)
                try body(self.start(ofPiece: index) + lower - piece.range.lowerBound, UnsafeBufferPointer(rebasing: region.buffer[lower..<upper]))
                region.releasePages(in: lower..<upper)
                lower = upper
            }
        }
    }
}
