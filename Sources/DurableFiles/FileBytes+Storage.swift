extension FileBytes {
    /// What a ``Piece`` is a range of: an array in memory, or a read-only mapping of a file
    /// that holds the same bytes (issue 19: a version's bytes served from the state file they
    /// were saved to, resident only while read). Either is shared by every piece cut from it
    /// and never written while held.
    public enum Storage: Sendable {
        /// Bytes in memory (`Array`'s copy on write keeps them as they are while held).
        case array([UInt8])
        /// A stretch of a file, mapped (see ``MappedFileRegion`` for what must not happen to
        /// the file meanwhile).
        case mapped(MappedFileRegion)

        /// How many bytes it holds.
        public var count: Int {
            switch self {
            case .array(let array): array.count
            case .mapped(let region): region.count
            }
        }

        /// What holding it keeps alive: the array's capacity, or the mapped stretch's length.
        public var capacity: Int {
            switch self {
            case .array(let array): array.capacity
            case .mapped(let region): region.count
            }
        }

        /// The array, when it is one.
        public var array: [UInt8]? {
            if case .array(let array) = self { return array }
            return nil
        }

        /// The mapping, when it is one.
        public var mappedRegion: MappedFileRegion? {
            if case .mapped(let region) = self { return region }
            return nil
        }

        /// All its bytes, in place.
        public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
            switch self {
            case .array(let array): return try array.withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
            case .mapped(let region): return try body(region.buffer)
            }
        }

        /// Where its bytes start in memory: the same for every piece of one storage, so it says
        /// which pieces share it (`nil` for an empty array).
        public var address: UInt {
            withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        }
    }
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
}
