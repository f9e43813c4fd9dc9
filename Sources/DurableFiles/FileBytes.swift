#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's bytes in memory, as pieces laid end to end that may share their storage with
/// another version of the same file.
///
/// Issue 19: a one-row edit of a large file should not cost a second copy of the file. A version
/// read after a small change keeps the stretches it has in common with the version before it as
/// slices of that version's storage, and holds only the changed stretch in new memory; the
/// watcher's read (``FileSnapshot``), the list reader and the state store all take the bytes in
/// this form. Bytes read whole are one piece, and cost what an array costs.
///
/// The value is immutable: it holds its storage (``Storage``), arrays, which nothing writes while
/// any piece of them is held (`Array`'s copy on write guarantees it for every writer;
/// ``RecycledArray/isUniquelyReferenced(_:)`` says no while a piece is held), or read-only
/// mappings of file regions, which their files' writer must leave as they are while mapped
/// (``MappedFileRegion``).
///
/// Equality and hashing are those of the bytes, whatever their pieces.
public struct FileBytes: Sendable {
    /// One stretch of the bytes: a range of a storage, an array or a mapped file region.
    public struct Piece: Sendable {
        /// The storage whose bytes these are (shared, never written while held).
        public let storage: Storage
        /// Which of its bytes.
        public let range: Range<Int>

        public init(storage: Storage, range: Range<Int>) {
            precondition(range.lowerBound >= 0 && range.upperBound <= storage.count, "a piece beyond its storage")
            self.storage = storage
            self.range = range
        }

        /// A range of `storage`, an array.
        public init(storage: [UInt8], range: Range<Int>) {
            self.init(storage: .array(storage), range: range)
        }

        /// The piece's bytes, in place.
        public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
            try storage.withUnsafeBufferPointer { buffer throws(E) in try body(UnsafeBufferPointer(rebasing: buffer[range])) }
        }
    }

    /// The pieces, none of them empty, in order.
    public let pieces: [Piece]

    /// Where each piece starts in the bytes.
    private let offsets: PieceOffsets

    /// How many bytes there are.
    public var count: Int { offsets.count }

    /// No bytes.
    public init() {
        self.init(pieces: [])
    }

    /// `bytes` as one piece: no copy.
    public init(_ bytes: [UInt8]) {
        self.init(pieces: [Piece(storage: bytes, range: 0..<bytes.count)])
    }

    /// The bytes of a mapped file region, as one piece: no copy, nothing resident until read.
    public init(mapped region: MappedFileRegion) {
        self.init(pieces: [Piece(storage: .mapped(region), range: 0..<region.count)])
    }

    /// The bytes of `pieces` one after the other; empty pieces are left out.
    public init(pieces: some Sequence<Piece>) {
        let kept = pieces.filter { !$0.range.isEmpty }
        self.pieces = kept
        self.offsets = PieceOffsets(lengths: kept.lazy.map(\.range.count))
    }

    public var isEmpty: Bool { count == 0 }

    /// Whether the bytes are one stretch of memory (one piece, or none).
    public var isContiguous: Bool { pieces.count <= 1 }

    /// The bytes as one array: the storage itself when it is one piece covering a whole array
    /// (O(1)), a copy otherwise (O(*n*)).
    public var array: [UInt8] {
        if pieces.count == 1, pieces[0].range == 0..<pieces[0].storage.count, let whole = pieces[0].storage.array {
            return whole
        }
        var array: [UInt8] = []
        array.reserveCapacity(count)
        // A mapped piece a stretch at a time, its pages let go of once copied.
        forEachStretch { _, stretch in array += stretch }
        return array
    }

    /// The bytes of every storage the pieces hold, each counted once: what holding these bytes
    /// keeps alive (at least ``count``; more when a piece keeps a larger array or mapping alive).
    public var storageByteCount: Int {
        var seen = Set<UInt>()
        var total = 0
        for piece in pieces {
            if seen.insert(piece.storage.address).inserted {
                total += piece.storage.capacity
            }
        }
        return total
    }

    /// The index of the piece that holds byte `offset` (`0 ..< count`). O(log pieces).
    public func pieceIndex(containing offset: Int) -> Int {
        offsets.pieceIndex(containing: offset)
    }

    /// Where piece `index` starts in the bytes.
    public func start(ofPiece index: Int) -> Int {
        offsets.starts[index]
    }

    /// The byte at `offset`. O(log pieces).
    public subscript(offset: Int) -> UInt8 {
        let index = pieceIndex(containing: offset)
        return pieces[index].withUnsafeBufferPointer { $0[offset - offsets.starts[index]] }
    }

    /// The bytes in `range`, sharing this value's storage. O(pieces).
    public subscript(range: Range<Int>) -> FileBytes {
        FileBytes(pieces: offsets.pieces(overlapping: range).map { index, part in
            let piece = pieces[index]
            return Piece(storage: piece.storage, range: (piece.range.lowerBound + part.lowerBound)..<(piece.range.lowerBound + part.upperBound))
        })
    }

    /// These bytes followed by `other`'s, sharing both values' storage.
    public static func + (lhs: FileBytes, rhs: FileBytes) -> FileBytes {
        FileBytes(pieces: lhs.pieces + rhs.pieces)
    }

    /// Calls `body` with the bytes in `range` as one stretch of memory: in place when one piece
    /// holds them all (the common case: a record, a chunk), else copied into a temporary buffer.
    public func withContiguousBytes<R, E: Error>(
        in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) out of 0..<\(count)")
        guard !range.isEmpty else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let index = pieceIndex(containing: range.lowerBound)
        if range.upperBound <= offsets.starts[index] + pieces[index].range.count {
            let piece = pieces[index]
            let lower = piece.range.lowerBound + range.lowerBound - offsets.starts[index]
            return try piece.storage.withUnsafeBufferPointer { buffer throws(E) in
                try body(UnsafeBufferPointer(rebasing: buffer[lower..<(lower + range.count)]))
            }
        }
        let copy = self[range].array
        return try copy.withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
    }

    /// Calls `body` with each piece's bytes in order, and where they start; stops early when
    /// `body` returns `false`.
    public func forEachPiece(_ body: (_ start: Int, _ bytes: UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows {
        for (index, piece) in pieces.enumerated() {
            let goOn = try piece.withUnsafeBufferPointer { try body(offsets.starts[index], $0) }
            if !goOn { return }
        }
    }
}

extension FileBytes: Equatable {
    /// Whether both hold the same bytes. O(*n*) `memcmp` at worst; stretches at the same address
    /// (pieces that share storage, however each side is cut) are not compared. Mapped pieces are
    /// compared a stretch at a time, their pages let go of as it goes.
    public static func == (lhs: FileBytes, rhs: FileBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var left = 0
        var right = 0
        var leftOffset = 0
        var rightOffset = 0
        while left < lhs.pieces.count, right < rhs.pieces.count {
            let a = lhs.pieces[left]
            let b = rhs.pieces[right]
            let aRegion = a.storage.mappedRegion
            let bRegion = b.storage.mappedRegion
            // A mapped piece a stretch at a time, its pages let go of once compared: comparing a
            // version held as mappings must not make it resident whole (issue 19).
            let stretch = aRegion == nil && bRegion == nil ? Int.max : FileBytes.mappedStretchLength
            let length = min(a.range.count - leftOffset, b.range.count - rightOffset, stretch)
            // Stretches at the same address (pieces that share storage) are equal uncompared.
            let equal = a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    guard let aBase = a.baseAddress, let bBase = b.baseAddress else { return length == 0 }
                    return aBase + leftOffset == bBase + rightOffset || memcmp(aBase + leftOffset, bBase + rightOffset, length) == 0
                }
            }
            aRegion?.releasePages(in: (a.range.lowerBound + leftOffset)..<(a.range.lowerBound + leftOffset + length))
            bRegion?.releasePages(in: (b.range.lowerBound + rightOffset)..<(b.range.lowerBound + rightOffset + length))
            guard equal else { return false }
            leftOffset += length
            rightOffset += length
            if leftOffset == a.range.count { left += 1; leftOffset = 0 }
            if rightOffset == b.range.count { right += 1; rightOffset = 0 }
        }
        return true
    }

    /// Whether the bytes equal `array`'s.
    public static func == (lhs: FileBytes, rhs: [UInt8]) -> Bool {
        lhs == FileBytes(rhs)
    }
}

extension FileBytes: Hashable {
    /// Hashes the bytes as `[UInt8]` hashes them: their count, then each byte.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        forEachPiece { _, bytes in
            for byte in bytes { hasher.combine(byte) }
            return true
        }
    }
}

extension FileBytes: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: UInt8...) {
        self.init(elements)
    }
}

extension FileBytes: CustomStringConvertible {
    public var description: String {
        "FileBytes(\(count) bytes in \(pieces.count) pieces)"
    }
}
