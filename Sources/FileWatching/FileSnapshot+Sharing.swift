import DurableFiles
import Glibc

extension FileSnapshot {
    /// Reads the file at `path` as ``read(atPath:maximumAttempts:)`` does — the same bytes, the
    /// same identity checks before and after, the same retries, ``FileReadError/unstable(path:attempts:)``,
    /// ``missing`` and ``FileReadError/notARegularFile(path:)`` — but holds in new memory only
    /// what changed since `previous`, the version read before it: the stretches at the start
    /// and at the end that are equal to `previous`'s are slices of `previous`'s storage.
    ///
    /// Issue 19: after a one-row edit the daemon held two whole copies of the file, the version
    /// it publishes and the one it read. With this read, the new version costs the changed
    /// middle; ``SharedStretches`` says which ends are known equal, so the reader keeps its
    /// chunks there without hashing them.
    ///
    /// `boundaries` are offsets in `previous` (ascending, in `0...previous.count`; the reader's
    /// record-aligned chunk boundaries, `0` and `previous.count` included): the shared start
    /// ends at one of them, and the shared end starts at one of them (moved by the change in
    /// length). The result's pieces are `previous[0 ..< prefix]` (shared), one new array holding
    /// exactly the bytes between, and `previous[(previous.count - suffix)...]` (shared); with
    /// nothing shared, one array as a whole read gives. With an empty `previous` or no
    /// boundaries it is a whole read (``SharedStretches/none``).
    ///
    /// How: the start is read forward through a window of ``followedPieceSize`` bytes and
    /// compared with `previous` (`memcmp`) up to the first difference; the end is read backward
    /// through the same window and compared with `previous`'s end down to the last difference;
    /// then the middle is read straight into an array of its exact size. New memory: the middle
    /// and the window — never a buffer of the file's size unless the middle is that large.
    /// Every byte of the file is read once, but for at most a window and a chunk at each end of
    /// the middle that are read twice. A file that ends before the size `fstat` gave, or goes on
    /// after it, is read again (as is any attempt during which its identity moved): what is
    /// returned is always what a whole read returns.
    ///
    /// It takes no ``FileReadFollower``: the bytes are not read from the start into one buffer,
    /// and the follower's work (the reader's chunk hashes) is only needed for the middle, which
    /// the reader parses anyway. Blocks: call it where blocking is fine.
    ///
    /// - Complexity: O(size) bytes read and compared; O(log boundaries) to cut the shared ends.
    public static func read(
        atPath path: String, maximumAttempts: Int = 5, sharingWith previous: FileBytes, boundaries: [Int]
    ) throws(FileReadError) -> (FileSnapshot, SharedStretches) {
        try read(atPath: path, maximumAttempts: maximumAttempts, sharingWith: previous, boundaries: boundaries, windowSize: followedPieceSize)
    }

    /// ``read(atPath:maximumAttempts:sharingWith:boundaries:)`` through a window of `windowSize`
    /// bytes (tests use small ones to cross many windows in small files).
    static func read(
        atPath path: String, maximumAttempts: Int = 5, sharingWith previous: FileBytes, boundaries: [Int], windowSize: Int
    ) throws(FileReadError) -> (FileSnapshot, SharedStretches) {
        precondition(windowSize > 0, "an empty window would never make progress")
        guard !previous.isEmpty, !boundaries.isEmpty else {
            return (try read(atPath: path, maximumAttempts: maximumAttempts), .none)
        }
        guard areBoundaries(boundaries, of: previous.count) else {
            assertionFailure("chunk boundaries \(boundaries.prefix(8))… are not ascending offsets in 0...\(previous.count)")
            return (try read(atPath: path, maximumAttempts: maximumAttempts), .none)
        }
        let window = UnsafeMutableRawBufferPointer.allocate(byteCount: windowSize, alignment: 64)
        defer { window.deallocate() }
        return try retrying(atPath: path, maximumAttempts: maximumAttempts) { () throws(FileReadError) -> (FileSnapshot, SharedStretches)? in
            let outcome = try checkedAttempt(atPath: path) {
                (descriptor, size) throws(FileReadError) -> (content: (FileBytes, SharedStretches), count: Int)? in
                switch readSharing(descriptor, size: size, previous: previous, boundaries: boundaries, window: window) {
                case .failure(let error): throw .systemCall(path: path, error)
                case .success(nil): return nil
                case .success(let read?): return (read, read.bytes.count)
                }
            }
            switch outcome {
            case .missing: return (.missing, .none)
            case .moved: return nil
            case .read((let bytes, let shared), let identity): return (.present(bytes: bytes, identity: identity), shared)
            }
        }
    }

    /// Whether `boundaries` are strictly ascending offsets in `0...count`.
    private static func areBoundaries(_ boundaries: [Int], of count: Int) -> Bool {
        guard let first = boundaries.first, let last = boundaries.last, first >= 0, last <= count else { return false }
        return zip(boundaries, boundaries.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// Reads the `size` bytes of the file open at `descriptor` (see
    /// ``read(atPath:maximumAttempts:sharingWith:boundaries:)``); `nil` when the file ended
    /// before `size` bytes or went on after them.
    private static func readSharing(
        _ descriptor: Int32, size: Int, previous: FileBytes, boundaries: [Int], window: UnsafeMutableRawBufferPointer
    ) -> Result<(bytes: FileBytes, shared: SharedStretches)?, SystemCallError> {
        let previousCount = previous.count
        // The start, forward: how many bytes are equal at the same offsets.
        var equalStart = 0
        let startLimit = min(size, previousCount)
        // Pages of `previous` held as mappings (issue 19) are let go of a few MiB at a time once
        // compared: comparing must not make the whole version resident.
        var releasedStart = 0
        defer { previous.releaseMappedPages(in: releasedStart..<equalStart) }
        while equalStart < startLimit {
            if equalStart - releasedStart >= FileBytes.mappedStretchLength {
                previous.releaseMappedPages(in: releasedStart..<equalStart)
                releasedStart = equalStart
            }
            let piece = UnsafeMutableRawBufferPointer(rebasing: window[..<min(window.count, startLimit - equalStart)])
            switch read(into: piece, from: descriptor, at: equalStart) {
            case .failure(let error): return .failure(error)
            case .success(false): return .success(nil)
            case .success(true): break
            }
            if let difference = firstDifference(UnsafeRawBufferPointer(piece), previous, at: equalStart) {
                equalStart += difference
                break
            }
            equalStart += piece.count
        }
        let prefix = boundary(atMost: equalStart, in: boundaries) ?? 0
        // The end, backward: how many bytes are equal at offsets moved by the change in length,
        // not reaching into the shared start.
        var equalEnd = 0
        let endLimit = min(previousCount, size - prefix)
        var releasedEnd = 0
        defer { previous.releaseMappedPages(in: (previousCount - equalEnd)..<(previousCount - releasedEnd)) }
        while equalEnd < endLimit {
            if equalEnd - releasedEnd >= FileBytes.mappedStretchLength {
                previous.releaseMappedPages(in: (previousCount - equalEnd)..<(previousCount - releasedEnd))
                releasedEnd = equalEnd
            }
            let piece = UnsafeMutableRawBufferPointer(rebasing: window[..<min(window.count, endLimit - equalEnd)])
            switch read(into: piece, from: descriptor, at: size - equalEnd - piece.count) {
            case .failure(let error): return .failure(error)
            case .success(false): return .success(nil)
            case .success(true): break
            }
            if let difference = lastDifference(UnsafeRawBufferPointer(piece), previous, at: previousCount - equalEnd - piece.count) {
                equalEnd += piece.count - 1 - difference
                break
            }
            equalEnd += piece.count
        }
        let suffix = previousCount - (boundary(atLeast: previousCount - equalEnd, in: boundaries) ?? previousCount)
        // The middle, straight into its own array.
        let middleCount = size - prefix - suffix
        var outcome: Result<Bool, SystemCallError> = .success(true)
        let middle = [UInt8](unsafeUninitializedCapacity: middleCount) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, byteCount: middleCount)
            outcome = read(into: UnsafeMutableRawBufferPointer(start: base, count: middleCount), from: descriptor, at: prefix)
            count = middleCount
        }
        guard case .success(true) = outcome else { return outcome.map { _ in nil } }
        // Nothing after `size`: a file that grew is read again (its identity moved too).
        switch read(into: UnsafeMutableRawBufferPointer(rebasing: window[..<1]), from: descriptor, at: size) {
        case .failure(let error): return .failure(error)
        case .success(true): return .success(nil)
        case .success(false): break
        }
        let bytes = FileBytes(
            pieces: previous[0..<prefix].pieces + [FileBytes.Piece(storage: middle, range: 0..<middleCount)]
                + previous[(previousCount - suffix)..<previousCount].pieces)
        return .success((bytes, SharedStretches(prefix: prefix, suffix: suffix)))
    }

    /// Fills `buffer` from the file's bytes at `offset` on: `false` when the file ends first.
    private static func read(into buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32, at offset: Int) -> Result<Bool, SystemCallError> {
        guard let base = buffer.baseAddress else { return .success(true) }
        var filled = 0
        while filled < buffer.count {
            let count = pread(descriptor, base + filled, buffer.count - filled, off_t(offset + filled))
            if count > 0 {
                filled += count
            } else if count == 0 {
                return .success(false)
            } else if errno != EINTR {
                return .failure(.lastError(of: "pread"))
            }
        }
        return .success(true)
    }

    /// The greatest of `boundaries` (ascending) that is at most `offset`.
    private static func boundary(atMost offset: Int, in boundaries: [Int]) -> Int? {
        let index = firstIndex(above: offset, in: boundaries)
        return index > 0 ? boundaries[index - 1] : nil
    }

    /// The least of `boundaries` (ascending) that is at least `offset`.
    private static func boundary(atLeast offset: Int, in boundaries: [Int]) -> Int? {
        let index = firstIndex(above: offset - 1, in: boundaries)
        return index < boundaries.count ? boundaries[index] : nil
    }

    /// The index of the first of `boundaries` (ascending) greater than `offset`. O(log n).
    private static func firstIndex(above offset: Int, in boundaries: [Int]) -> Int {
        var low = 0
        var high = boundaries.count
        while low < high {
            let middle = (low + high) / 2
            if boundaries[middle] <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The offset in `bytes` of the first byte that differs from `previous`'s byte at the same
    /// offset plus `start` (`bytes` lies within `previous`).
    private static func firstDifference(_ bytes: UnsafeRawBufferPointer, _ previous: FileBytes, at start: Int) -> Int? {
        firstAnswer(over: previous, in: start..<(start + bytes.count), reversed: false) { offset, stretch in
            ByteComparison.firstDifference(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + stretch.count)]), stretch).map { offset + $0 }
        }
    }

    /// The offset in `bytes` of the last byte that differs from `previous`'s byte at the same
    /// offset plus `start` (`bytes` lies within `previous`).
    private static func lastDifference(_ bytes: UnsafeRawBufferPointer, _ previous: FileBytes, at start: Int) -> Int? {
        firstAnswer(over: previous, in: start..<(start + bytes.count), reversed: true) { offset, stretch in
            ByteComparison.lastDifference(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + stretch.count)]), stretch).map { offset + $0 }
        }
    }

    /// Calls `body` with the bytes of `previous[range]` piece by piece — in order, or last piece
    /// first — each with where it starts in `range`, until `body` gives an answer.
    private static func firstAnswer<Answer>(
        over previous: FileBytes, in range: Range<Int>, reversed: Bool, _ body: (_ offset: Int, _ stretch: UnsafeRawBufferPointer) -> Answer?
    ) -> Answer? {
        guard !range.isEmpty else { return nil }
        let first = previous.pieceIndex(containing: range.lowerBound)
        let last = previous.pieceIndex(containing: range.upperBound - 1)
        for index in reversed ? Array((first...last).reversed()) : Array(first...last) {
            let pieceStart = previous.start(ofPiece: index)
            let piece = previous.pieces[index]
            let lower = max(range.lowerBound, pieceStart)
            let upper = min(range.upperBound, pieceStart + piece.range.count)
            let answer = piece.withUnsafeBufferPointer { bytes in
                body(lower - range.lowerBound, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(lower - pieceStart)..<(upper - pieceStart)])))
            }
            if let answer { return answer }
        }
        return nil
    }
}
