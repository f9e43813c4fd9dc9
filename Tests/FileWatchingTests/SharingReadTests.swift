import DurableFiles
import Glibc
import Testing
@testable import FileWatching

/// ``FileSnapshot/read(atPath:maximumAttempts:sharingWith:boundaries:)``: the bytes and identity
/// a whole read gives, held as the previous version's storage at the shared ends and one new
/// array of exactly the bytes between.
struct SharingReadTests {
    /// What may happen to a file between two reads.
    enum Edit: CaseIterable {
        case inPlace, insert, delete, append, truncate, header, rewrite, firstByte, lastByte, none, empty
    }

    /// Random edits of random files, each read sharing with the version read before it (itself
    /// a sharing read, so `previous` is in pieces too, or a random split of a whole read),
    /// through windows of random sizes, against random chunk boundaries.
    @Test func readsAsAWholeReadAndSharesTheLongestChunkAlignedEnds() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        var generator = SystemRandomNumberGenerator()
        var seen: Set<String> = []
        for _ in 0..<60 {
            var bytes = Self.randomLines(count: Int.random(in: 0...120, using: &generator), using: &generator)
            try Self.write(bytes, to: path)
            var previous = try Self.wholeRead(path).bytes
            if Bool.random(using: &generator) {
                previous = FileBytesTests.randomSplit(previous.array, using: &generator)
            }
            for _ in 0..<6 {
                let edit = Edit.allCases.randomElement(using: &generator) ?? .none
                bytes = Self.edited(bytes, by: edit, using: &generator)
                try Self.write(bytes, to: path)
                let boundaries = Self.randomBoundaries(of: previous.array, using: &generator)
                let windowSize = [1, 2, 7, 64, 4_100, FileSnapshot.followedPieceSize].randomElement(using: &generator) ?? 1
                let (snapshot, shared) = try FileSnapshot.read(atPath: path, sharingWith: previous, boundaries: boundaries, windowSize: windowSize)
                #expect(snapshot == (try FileSnapshot.read(atPath: path)), "\(edit), window \(windowSize)")
                guard case .present(let read, _) = snapshot else {
                    Issue.record("\(path) read as missing")
                    return
                }
                #expect(read == bytes)
                Self.expectShared(shared, by: read, with: previous, boundaries: boundaries, "\(edit), window \(windowSize)")
                if shared.prefix > 0 { seen.insert("prefix") }
                if shared.suffix > 0 { seen.insert("suffix") }
                if read.count - shared.prefix - shared.suffix > 0, shared.prefix + shared.suffix > 0 { seen.insert("middle") }
                previous = read
            }
        }
        // The random cases reached every shape.
        #expect(seen == ["prefix", "suffix", "middle"])
    }

    /// Each edit at the start, at the end and in between, of a file several windows long, with
    /// a chunk at every line: what each shares is known exactly.
    @Test func sharesWhatEachEditLeavesEqual() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        let lines = (0..<200).map { "row \($0),value \($0 * 7)\n" }
        let old = Array(lines.joined().utf8)
        let lineEnds = Self.lineBoundaries(of: old)
        let third = lineEnds[67]
        let cases: [(String, [UInt8], SharedStretches)] = [
            ("equal", old, SharedStretches(prefix: old.count, suffix: 0)),
            ("first byte", [UInt8(ascii: "R")] + old.dropFirst(), SharedStretches(prefix: 0, suffix: old.count - lineEnds[1])),
            ("last byte", old.dropLast() + [UInt8(ascii: ";")], SharedStretches(prefix: lineEnds[199], suffix: 0)),
            ("append", old + Array("row 200,value 0\n".utf8), SharedStretches(prefix: old.count, suffix: 0)),
            ("truncate", Array(old[..<third]), SharedStretches(prefix: third, suffix: 0)),
            ("insert", Array(old[..<third]) + Array("new,row\n".utf8) + old[third...], SharedStretches(prefix: third, suffix: old.count - third)),
            ("delete", Array(old[..<third]) + old[lineEnds[68]...], SharedStretches(prefix: third, suffix: old.count - lineEnds[68])),
            // "row 67" → "row 6x": the line's own chunk is the middle.
            ("in place", Array(old[..<(third + 5)]) + [UInt8(ascii: "x")] + old[(third + 6)...],
             SharedStretches(prefix: third, suffix: old.count - lineEnds[68])),
            ("empty", [], SharedStretches(prefix: 0, suffix: 0)),
        ]
        for (name, new, expected) in cases {
            try Self.write(new, to: path)
            for windowSize in [5, 100, FileSnapshot.followedPieceSize] {
                let previous = FileBytes(old)
                let (snapshot, shared) = try FileSnapshot.read(atPath: path, sharingWith: previous, boundaries: lineEnds, windowSize: windowSize)
                #expect(shared == expected, "\(name), window \(windowSize)")
                #expect(snapshot == (try FileSnapshot.read(atPath: path)), "\(name), window \(windowSize)")
                if case .present(let read, _) = snapshot {
                    Self.expectShared(shared, by: read, with: previous, boundaries: lineEnds, "\(name), window \(windowSize)")
                }
            }
        }
    }

    /// A one-row edit of a 2 MB file (64 KiB chunks) through the default window: the new
    /// version holds one new array of about a chunk — not a buffer of the file's size — and the
    /// rest is the previous version's storage.
    @Test func aOneRowEditOfALargeFileHoldsAboutAChunkInNewMemory() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        let old = Array((0..<100_000).map { "\($0),name \($0),\($0 % 97)\n" }.joined().utf8)
        try Self.write(old, to: path)
        let previous = try Self.wholeRead(path).bytes
        let boundaries = Self.chunkBoundaries(of: old, chunkSize: 64 << 10)
        var new = old
        let row = old.count / 2
        new[row] = new[row] == UInt8(ascii: "9") ? UInt8(ascii: "8") : UInt8(ascii: "9")
        try Self.write(new, to: path)

        let (snapshot, shared) = try FileSnapshot.read(atPath: path, sharingWith: previous, boundaries: boundaries)
        #expect(snapshot == (try FileSnapshot.read(atPath: path)))
        guard case .present(let read, _) = snapshot else {
            Issue.record("\(path) read as missing")
            return
        }
        Self.expectShared(shared, by: read, with: previous, boundaries: boundaries, "one row")
        let middle = read.count - shared.prefix - shared.suffix
        #expect(middle > 0 && middle <= 64 << 10 + 4_096, "the edited row's chunk only")
        #expect(read.pieces.count == 3)
        #expect(Self.newStorageByteCount(of: read, besides: previous) < old.count / 16)
    }

    /// A writer appends rows while the file is read, each read sharing with the one before:
    /// every read is a whole version — a start of the final file, whole rows, its identity's
    /// size — and the ends it shares are equal to the previous read's.
    @Test func readsDuringAppendsAreWholeVersions() async throws {
        var reads: [FileBytes] = []
        try await FileSnapshotTests.expectConsistentReads(
            saving: (0..<2_000).map { "row \($0)\n" }, initial: "header\n" + String(repeating: "row -1\n", count: 20_000),
            each: { line, path in
                try FileOperations.write([line], to: path, flags: O_WRONLY | O_APPEND)
                usleep(100)
            }, isWhole: { text in text.hasPrefix("header\n") && text.hasSuffix("\n") },
            reading: { path throws(FileReadError) in try Self.readSharing(path, with: &reads) })
        // Appends only: each read is the start of the longest.
        let longest = reads.max { $0.count < $1.count } ?? FileBytes()
        for read in reads {
            #expect(read == longest[0..<read.count], "not a version the file had")
        }
    }

    /// A writer renames complete versions of different sizes over the file: every sharing read
    /// is exactly one of them.
    @Test func readsDuringRenameOverSavesAreNeverTorn() async throws {
        let versions = (1...4).map { version in
            (0..<(3_000 * version)).map { "row \($0),\($0 % (version + 2))\n" }.joined()
        }
        var reads: [FileBytes] = []
        try await FileSnapshotTests.expectConsistentReads(
            saving: versions, initial: versions[0],
            each: FileSnapshotTests.renameOver, isWhole: { versions.contains($0) },
            reading: { path throws(FileReadError) in try Self.readSharing(path, with: &reads) })
    }

    /// Reads `path` sharing with the last of `reads` (a whole read at first), against a chunk
    /// at every line, checks what it shares, and adds it to `reads`.
    private static func readSharing(_ path: String, with reads: inout [FileBytes]) throws(FileReadError) -> FileSnapshot {
        let previous = reads.last ?? FileBytes()
        let boundaries = lineBoundaries(of: previous.array)
        let (snapshot, shared) = try FileSnapshot.read(atPath: path, sharingWith: previous, boundaries: boundaries, windowSize: 4_096)
        if case .present(let read, _) = snapshot {
            expectShared(shared, by: read, with: previous, boundaries: boundaries, "during saves")
            reads.append(read)
        }
        return snapshot
    }

    /// No previous bytes or no boundaries: a whole read, one array. A missing file, a
    /// directory: as a whole read says.
    @Test func withoutAPreviousVersionItIsAWholeRead() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/list.csv"
        try FileOperations.write("sku,name\na-1,thing\n", to: path)
        for (previous, boundaries) in [(FileBytes(), [0]), (FileBytes(Array("sku,name\n".utf8)), [])] {
            let (snapshot, shared) = try FileSnapshot.read(atPath: path, sharingWith: previous, boundaries: boundaries)
            #expect(snapshot == (try FileSnapshot.read(atPath: path)))
            #expect(shared == .none)
            if case .present(let read, _) = snapshot {
                #expect(read.pieces.count == 1 && read.pieces[0].range == 0..<read.pieces[0].storage.count)
            }
        }
        let previous = FileBytes(Array("sku,name\n".utf8))
        let missing = try FileSnapshot.read(atPath: scratch.path + "/absent/list.csv", sharingWith: previous, boundaries: [0, 9])
        #expect(missing.0 == .missing && missing.1 == .none)
        #expect(throws: FileReadError.notARegularFile(path: scratch.path)) {
            try FileSnapshot.read(atPath: scratch.path, sharingWith: previous, boundaries: [0, 9])
        }
    }

    // MARK: - Checks

    /// The shared ends are chunk boundaries of `previous` (the end's moved by the change in
    /// length), do not overlap, hold equal bytes, and are as long as the longest equal runs
    /// allow; `read`'s pieces are `previous`'s slices there — its very storage — and one new
    /// array of exactly the bytes between, which is all the new memory `read` holds.
    static func expectShared(
        _ shared: SharedStretches, by read: FileBytes, with previous: FileBytes, boundaries: [Int], _ comment: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let old = previous.array
        let new = read.array
        let (prefix, suffix) = (shared.prefix, shared.suffix)
        guard prefix >= 0, suffix >= 0, prefix + suffix <= new.count, prefix <= old.count, suffix <= old.count else {
            Issue.record("\(shared) out of \(new.count) bytes (previously \(old.count)); \(comment)", sourceLocation: sourceLocation)
            return
        }
        #expect(prefix == 0 || boundaries.contains(prefix), "\(comment)", sourceLocation: sourceLocation)
        #expect(suffix == 0 || boundaries.contains(old.count - suffix), "\(comment)", sourceLocation: sourceLocation)
        #expect(new[..<prefix] == old[..<prefix], "\(comment)", sourceLocation: sourceLocation)
        #expect(new[(new.count - suffix)...] == old[(old.count - suffix)...], "\(comment)", sourceLocation: sourceLocation)
        // As long as they can be: the longest equal runs, cut back to boundaries.
        if !old.isEmpty, !boundaries.isEmpty {
            let equalStart = zip(old, new).prefix { $0 == $1 }.count
            let expectedPrefix = boundaries.last { $0 <= equalStart } ?? 0
            let equalEnd = min(zip(old.reversed(), new.reversed()).prefix { $0 == $1 }.count, new.count - expectedPrefix)
            let expectedSuffix = old.count - (boundaries.first { $0 >= old.count - equalEnd } ?? old.count)
            #expect(shared == SharedStretches(prefix: expectedPrefix, suffix: expectedSuffix), "\(comment)", sourceLocation: sourceLocation)
        }
        // The pieces: the previous version's at the ends, one new array between.
        let middle = new.count - prefix - suffix
        let middleIndex = previous[0..<prefix].pieces.count
        let middlePieces = middle > 0 && middleIndex < read.pieces.count ? [read.pieces[middleIndex]] : []
        let expectedPieces = previous[0..<prefix].pieces + middlePieces + previous[(old.count - suffix)..<old.count].pieces
        #expect(read.pieces.map(Self.stretch) == expectedPieces.map(Self.stretch), "\(comment)", sourceLocation: sourceLocation)
        let previousStorage = Set(previous.pieces.map { Self.stretch($0).address })
        for piece in middlePieces {
            #expect(!previousStorage.contains(Self.stretch(piece).address), "\(comment)", sourceLocation: sourceLocation)
            #expect(piece.range == 0..<piece.storage.count && piece.storage.count == middle, "\(comment)", sourceLocation: sourceLocation)
        }
        // The middle's exact size, up to the allocator's rounding (a page for a large one) — or
        // for a whole read (nothing to share with), its room for appends.
        let allowance = previous.isEmpty || boundaries.isEmpty ? RecycledArray.recyclableCapacity(for: middle + 1) + 64 : middle + 4_096
        #expect(newStorageByteCount(of: read, besides: previous) <= allowance, "\(comment)", sourceLocation: sourceLocation)
    }

    /// The bytes of the arrays `read` holds that `previous` does not: its new memory.
    static func newStorageByteCount(of read: FileBytes, besides previous: FileBytes) -> Int {
        let previousStorage = Set(previous.pieces.map { stretch($0).address })
        return FileBytes(pieces: read.pieces.filter { !previousStorage.contains(stretch($0).address) }).storageByteCount
    }

    struct Stretch: Equatable {
        var address: UInt
        var range: Range<Int>
    }

    static func stretch(_ piece: FileBytes.Piece) -> Stretch {
        Stretch(address: piece.storage.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }, range: piece.range)
    }

    // MARK: - Files and edits

    static func wholeRead(_ path: String) throws -> (bytes: FileBytes, identity: FileIdentity) {
        guard case .present(let bytes, let identity) = try FileSnapshot.read(atPath: path) else {
            throw Missing(path: path)
        }
        return (bytes, identity)
    }

    struct Missing: Error {
        var path: String
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try FileOperations.write(String(decoding: bytes, as: UTF8.self), to: path)
    }

    /// Short lines of few letters, so that equal bytes by chance are common.
    static func randomLines(count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<count {
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                bytes.append(UInt8(ascii: "a") + UInt8.random(in: 0...2, using: &generator))
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    static func edited(_ bytes: [UInt8], by edit: Edit, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes = bytes
        let lower = Int.random(in: 0...bytes.count, using: &generator)
        let upper = Int.random(in: lower...min(bytes.count, lower + 40), using: &generator)
        let lines = randomLines(count: Int.random(in: 1...4, using: &generator), using: &generator)
        switch edit {
        case .inPlace:
            bytes.replaceSubrange(lower..<upper, with: (lower..<upper).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0...3, using: &generator) })
        case .insert:
            bytes.insert(contentsOf: lines, at: lower)
        case .delete:
            bytes.removeSubrange(lower..<upper)
        case .append:
            bytes += lines
        case .truncate:
            bytes.removeSubrange(lower...)
        case .header:
            let end = (bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count)
            bytes.replaceSubrange(..<end, with: Array("id,name,\(lower)".utf8))
        case .rewrite:
            bytes = randomLines(count: Int.random(in: 0...120, using: &generator), using: &generator)
        case .firstByte where !bytes.isEmpty:
            bytes[0] = bytes[0] == UInt8(ascii: "z") ? UInt8(ascii: "y") : UInt8(ascii: "z")
        case .lastByte where !bytes.isEmpty:
            bytes[bytes.count - 1] = bytes[bytes.count - 1] == UInt8(ascii: "z") ? UInt8(ascii: "y") : UInt8(ascii: "z")
        case .firstByte, .lastByte, .none:
            break
        case .empty:
            bytes = []
        }
        return bytes
    }

    /// `0`, `bytes.count`, and a random choice of line ends: record-aligned chunks of random
    /// lengths (sometimes one chunk).
    static func randomBoundaries(of bytes: [UInt8], using generator: inout some RandomNumberGenerator) -> [Int] {
        let density: Double = [0.0, 0.1, 0.5, 1.0].randomElement(using: &generator) ?? 1
        var boundaries: [Int] = []
        for boundary in lineBoundaries(of: bytes) where boundary == 0 || boundary == bytes.count || Double.random(in: 0..<1, using: &generator) < density {
            boundaries.append(boundary)
        }
        return boundaries
    }

    /// `0`, every line end, and `bytes.count`.
    static func lineBoundaries(of bytes: [UInt8]) -> [Int] {
        var boundaries = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") && index + 1 < bytes.count {
            boundaries.append(index + 1)
        }
        if bytes.count > 0 { boundaries.append(bytes.count) }
        return boundaries
    }

    /// `0`, the first line end at or after each multiple of `chunkSize`, and `bytes.count`.
    static func chunkBoundaries(of bytes: [UInt8], chunkSize: Int) -> [Int] {
        var boundaries = [0]
        var next = chunkSize
        for (index, byte) in bytes.enumerated() where index + 1 >= next && byte == UInt8(ascii: "\n") && index + 1 < bytes.count {
            boundaries.append(index + 1)
            next = index + 1 + chunkSize
        }
        if bytes.count > 0 { boundaries.append(bytes.count) }
        return boundaries
    }
}
