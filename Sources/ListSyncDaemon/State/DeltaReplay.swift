import DurableFiles

/// Rebuilds a version's bytes from a checkpoint's and the ``ByteDelta``s recorded after it,
/// without moving the file's bytes once per delta: the deltas edit a list of pieces (ranges of
/// the checkpoint's bytes or of inserted bytes), and the bytes are copied once, at the end.
///
/// - Complexity: O(*k*²) in the deltas for the pieces (a journal holds a bounded number of
///   them, ``DeltaJournal/mostRecords``), plus O(*n*) for the bytes.
struct DeltaReplay {
    /// A run of the result: bytes `range` of the base (`insert == nil`) or of an inserted run.
    private struct Piece {
        var insert: Int?
        var range: Range<Int>
    }

    private let base: FileBytes
    private var inserts: [FileBytes] = []
    private var pieces: [Piece]
    /// The length of the bytes so far.
    private(set) var count: Int

    /// A replay over `base`, held in pieces or mapped (issue 19: a restore's slot, mapped).
    init(base: FileBytes) {
        self.base = base
        self.pieces = base.isEmpty ? [] : [Piece(insert: nil, range: 0..<base.count)]
        self.count = base.count
    }

    init(base: [UInt8]) {
        self.init(base: FileBytes(base))
    }

    /// Applies `delta`; `false` (and nothing applied) when it reaches past the bytes so far.
    mutating func apply(_ delta: ByteDelta) -> Bool {
        guard delta.prefix >= 0, delta.removed >= 0, delta.prefix <= self.count - delta.removed else { return false }
        let end = delta.prefix + delta.removed
        var result: [Piece] = []
        result.reserveCapacity(self.pieces.count + 2)
        var position = 0
        var placed = false
        func place() {
            guard !placed else { return }
            placed = true
            guard !delta.inserted.isEmpty else { return }
            self.inserts.append(delta.inserted)
            result.append(Piece(insert: self.inserts.count - 1, range: 0..<delta.inserted.count))
        }
        for piece in self.pieces {
            let start = position
            position += piece.range.count
            // The part of the piece before the replaced bytes, then after them.
            if start < delta.prefix {
                let kept = min(piece.range.count, delta.prefix - start)
                result.append(Piece(insert: piece.insert, range: piece.range.lowerBound..<(piece.range.lowerBound + kept)))
            }
            if position > end {
                place()
                let skipped = max(0, end - start)
                result.append(Piece(insert: piece.insert, range: (piece.range.lowerBound + skipped)..<piece.range.upperBound))
            }
        }
        place()
        self.pieces = result
        self.count += delta.inserted.count - delta.removed
        return true
    }

    /// The bytes as pieces of the base's and the inserted bytes' storage, none copied: O(pieces).
    func fileBytes() -> FileBytes {
        self.pieces.reduce(FileBytes()) { bytes, piece in bytes + (piece.insert.map { self.inserts[$0] } ?? self.base)[piece.range] }
    }

    /// The bytes, copied once, into a buffer of 2 MiB pages (``HugePages``) that is not zeroed first.
    func bytes() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: self.count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, byteCount: self.count)
            for piece in self.pieces {
                // A mapped piece a stretch at a time, its pages let go of once copied.
                (piece.insert.map { self.inserts[$0] } ?? self.base)[piece.range].forEachStretch { _, source in
                    guard let from = source.baseAddress else { return }
                    (base + initialized).initialize(from: from, count: source.count)
                    initialized += source.count
                }
            }
        }
    }
}
