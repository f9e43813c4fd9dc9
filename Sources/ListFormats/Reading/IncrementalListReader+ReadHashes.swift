extension IncrementalListReader {
    /// The XXH3-128 of the last version's chunks in the next version's bytes, taken while a file
    /// read brings those bytes in, piece by piece (``begin(size:)``, ``follow(_:)``): each piece
    /// is hashed while it is still in the CPU's cache, rather than in a second pass over the whole
    /// file in memory once it is read (issue 19: that pass cost about as much as the read itself
    /// per one-row version of an 88 MB file).
    ///
    /// It hashes what ``IncrementalListReader/read(bytes:recycling:hashes:)`` compares to find
    /// the chunks it keeps: the last version's chunks at their offsets, from the start of the
    /// file up to the first whose hash differs; from there on, each chunk at its offset moved by
    /// the change in the file's length (known from the size the read starts with), which is where
    /// a chunk kept at the end of the file lies. With the same length, both are one hash. Every
    /// byte is hashed about once, as the search after the read hashes it; a hash the search needs
    /// and this did not take (a chunk kept for its hash but not for its line end) is taken then.
    ///
    /// The reader uses these hashes only for the bytes they were taken from: the version they
    /// were made for, the same address and count, every byte followed. (Debug builds check each
    /// one used against the bytes.)
    public struct ReadHashes: Sendable {
        /// The version whose chunks these are (``Memory/version``).
        let version: UInt64
        private let chunks: [Chunk]
        private let previousLength: Int
        private let dataStart: Int
        /// The size the read started with (-1: nothing to use).
        private var size = -1
        /// The address of the bytes followed, and how many of them.
        private var base: UInt = 0
        private var followedCount = 0
        /// The next chunk to hash at its own offsets while the chunks before it matched, and then
        /// the next to hash at its moved offsets.
        private var prefixNext = 0
        private var prefixEnded = false
        private var movedNext = 0
        /// Chunk by chunk: the hash of the bytes at its offsets, and at its offsets moved by
        /// `size - previousLength`.
        private var atPlace: [ContentHash?] = []
        private var moved: [ContentHash?] = []

        init(of memory: Memory) {
            version = memory.version
            chunks = memory.chunks
            previousLength = memory.fileLength
            dataStart = memory.dataStart
        }

        /// A read of `size` bytes starts: what an earlier attempt hashed is forgotten.
        public mutating func begin(size: Int) {
            self.size = size
            base = 0
            followedCount = 0
            prefixNext = 0
            prefixEnded = false
            movedNext = 0
            atPlace = Array(repeating: nil, count: chunks.count)
            moved = Array(repeating: nil, count: chunks.count)
        }

        /// `bytes`, the read's bytes so far from the file's start (each call more of the same
        /// buffer), are in: hashes every chunk they now hold entirely.
        public mutating func follow(_ bytes: UnsafeRawBufferPointer) {
            guard size >= 0, let address = bytes.baseAddress else { return }
            if followedCount == 0 {
                base = UInt(bitPattern: address)
            } else if base != UInt(bitPattern: address) {
                size = -1  // Not one buffer: use nothing.
                return
            }
            let available = min(bytes.count, size)
            followedCount = available
            let delta = size - previousLength
            while !prefixEnded, prefixNext < chunks.count {
                let chunk = chunks[prefixNext]
                guard chunk.end <= size else {
                    prefixEnded = true
                    movedNext = prefixNext
                    break
                }
                guard chunk.end <= available else { return }
                let hash = IncrementalListReader.hash(bytes, chunk.start, chunk.end)
                atPlace[prefixNext] = hash
                if delta == 0 { moved[prefixNext] = hash }
                if hash != chunk.hash {
                    prefixEnded = true
                    movedNext = delta == 0 ? prefixNext + 1 : prefixNext
                }
                prefixNext += 1
            }
            guard prefixEnded else { return }
            while movedNext < chunks.count {
                let chunk = chunks[movedNext]
                let start = chunk.start + delta
                let end = chunk.end + delta
                if start < dataStart {
                    movedNext += 1
                    continue
                }
                guard end <= available else { return }
                let hash = IncrementalListReader.hash(bytes, start, end)
                moved[movedNext] = hash
                if delta == 0 { atPlace[movedNext] = hash }
                movedNext += 1
            }
        }

        /// Whether these hashes were taken from `buffer`, every byte of it, for `memory`'s chunks.
        func apply(to buffer: UnsafeBufferPointer<UInt8>, of memory: Memory) -> Bool {
            guard size >= 0, version == memory.version, size == buffer.count, followedCount == size,
                let address = buffer.baseAddress, base == UInt(bitPattern: address)
            else { return false }
            return true
        }

        /// The hash of chunk `index`'s bytes at its offsets (`movedBy` 0) or moved by the change in
        /// length, when this read took it.
        func hash(ofChunk index: Int, movedBy delta: Int) -> ContentHash? {
            if delta == 0, let hash = atPlace[index] { return hash }
            return delta == size - previousLength ? moved[index] : nil
        }
    }

    /// What ``read(bytes:recycling:hashes:)`` needs hashed while the next version's bytes are
    /// read: the last version's chunks (nil when there is none, or when it holds no chunk).
    public func hashesWhileReading() -> ReadHashes? {
        guard let memory, !memory.chunks.isEmpty else { return nil }
        return ReadHashes(of: memory)
    }
}
