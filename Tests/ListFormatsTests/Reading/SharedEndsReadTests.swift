import DurableFiles
import ListFormats
import PropertyBased
import Synchronization
import Testing

/// The incremental reader given a version as ``FileBytes`` in pieces — as the watcher's sharing
/// read gives it (the previous version's storage for the unchanged ends, at its chunk boundaries,
/// and one new array between) or split anyhow — reads it exactly as one pass of ``ListReader``
/// reads the same bytes in one array, at every version, in every shape; told the shared ends, it
/// hashes none of the kept chunks and parses the changed middle in place (issue 19: no second
/// copy of the file's bytes).
@Suite struct SharedEndsReadTests {
    typealias Outcome = IncrementalListReaderTests.Outcome

    /// How a version is handed to the reader.
    enum Split: CaseIterable {
        /// As the sharing read makes it: the previous version's ends, the middle as one array.
        case sharing
        /// Likewise, with the middle cut into several arrays.
        case sharingCutMiddle
        /// Cut into arrays at random places, no ends said to be shared.
        case anyhow
    }

    /// The longest ends of `bytes` that are `previous`'s and end (start, at the end) at one of its
    /// chunk boundaries, as the watcher's sharing read finds them; then, when `shorter`, ends cut
    /// back to random boundaries inside them.
    static func sharedEnds(
        of bytes: [UInt8], previous: [UInt8], boundaries: [Int], shorter: Bool, _ rng: inout any SeededRandomNumberGenerator
    ) -> (prefix: Int, suffix: Int) {
        let shortest = min(bytes.count, previous.count)
        var common = 0
        while common < shortest, bytes[common] == previous[common] { common += 1 }
        let prefixes = boundaries.filter { $0 <= common }
        var prefix = prefixes.last ?? 0
        if shorter { prefix = prefixes.randomElement(using: &rng) ?? 0 }
        var commonEnd = 0
        while commonEnd < shortest - prefix, bytes[bytes.count - 1 - commonEnd] == previous[previous.count - 1 - commonEnd] {
            commonEnd += 1
        }
        let suffixes = boundaries.map { previous.count - $0 }.filter { $0 <= commonEnd }.sorted()
        var suffix = suffixes.last ?? 0
        if shorter { suffix = suffixes.randomElement(using: &rng) ?? 0 }
        return (prefix, suffix)
    }

    /// `bytes` as arrays of random lengths one after the other.
    static func cut(_ bytes: ArraySlice<UInt8>, _ rng: inout any SeededRandomNumberGenerator) -> FileBytes {
        var pieces: [FileBytes.Piece] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = min(bytes.endIndex, start + Int.random(in: 1...max(1, bytes.count / 2), using: &rng))
            pieces.append(FileBytes.Piece(storage: Array(bytes[start..<end]), range: 0..<(end - start)))
            start = end
        }
        return FileBytes(pieces: pieces)
    }

    /// Every version of random lists under random edits, handed over in pieces.
    @Test func everyVersionInPiecesReadsAsOnePassDoes() async {
        let sharedReads = Mutex(0)
        let inPlaceReads = Mutex(0)
        await propertyCheck(count: 1200, input: IncrementalListReaderTests.scenario) { scenario in
            var rng: any SeededRandomNumberGenerator = Xoshiro(seed: (UInt64(scenario.versions.count), UInt64(scenario.chunkSize), UInt64(scenario.splitSize), UInt64(scenario.versions.last?.count ?? 0) | 1))
            var incremental = IncrementalListReader(
                options: scenario.options, chunkSize: scenario.chunkSize, splitSize: scenario.splitSize)
            let pool = ListBufferPool()
            let full = ListReader(options: scenario.options)
            // The version the reader read last, as the list holds it (nil: its read failed).
            var previous: (bytes: [UInt8], held: FileBytes)?
            for (number, bytes) in scenario.versions.enumerated() {
                let version = "version \(number): \(String(decoding: bytes, as: UTF8.self).debugDescription)"
                let boundaries = incremental.chunkBoundaries
                var split = Split.allCases.randomElement(using: &rng) ?? .anyhow
                if previous == nil || boundaries.isEmpty { split = .anyhow }
                var given: FileBytes
                var shared: (prefix: Int, suffix: Int)?
                switch split {
                case .sharing, .sharingCutMiddle:
                    guard let previous else { fatalError("a sharing read without a previous version") }
                    let ends = Self.sharedEnds(
                        of: bytes, previous: previous.bytes, boundaries: boundaries, shorter: Int.random(in: 0..<4, using: &rng) == 0,
                        &rng)
                    let middle = bytes[ends.prefix..<(bytes.count - ends.suffix)]
                    given =
                        previous.held[0..<ends.prefix]
                        + (split == .sharing ? FileBytes(Array(middle)) : Self.cut(middle, &rng))
                        + previous.held[(previous.bytes.count - ends.suffix)..<previous.bytes.count]
                    shared = ends
                case .anyhow:
                    given = Self.cut(bytes[...], &rng)
                }
                #expect(given == bytes, "\(version)")

                let expectedList = Result { () throws(ListFormatError) in try full.read(bytes: bytes) }
                let actualList = Result { () throws(ListFormatError) in
                    try incremental.read(bytes: given, shared: shared, recycling: pool)
                }
                let expected = Outcome { () throws(ListFormatError) in try expectedList.get() }
                let actual = Outcome { () throws(ListFormatError) in try actualList.get() }
                #expect(actual == expected, "\(version), \(split)")
                let read = incremental.lastRead
                if case .success(let list) = actualList, case .success(let reference) = expectedList {
                    #expect(list.fileBytes == bytes, "\(version)")
                    #expect(list.bytes == bytes, "\(version)")
                    // Every record's bytes and value, looked up in its piece, as the full path gives them.
                    #expect(list.records.map { Array(list.sourceBytes(of: $0)) } == reference.records.map { Array(reference.sourceBytes(of: $0)) }, "\(version)")
                    #expect(list.values == reference.values, "\(version)")
                    if list.records.count > 0 || read.wasIncremental, !incremental.chunkBoundaries.isEmpty {
                        let boundaries = incremental.chunkBoundaries
                        #expect(boundaries.first == 0 && boundaries.last == bytes.count, "\(version): \(boundaries)")
                        #expect(zip(boundaries, boundaries.dropFirst()).allSatisfy { $0 < $1 }, "\(version): \(boundaries)")
                        // No record straddles a boundary.
                        let inner = Set(boundaries)
                        for record in list.records {
                            #expect(!record.byteRange.dropFirst().contains(where: inner.contains), "\(version): \(record.byteRange)")
                        }
                    }
                    previous = (bytes, list.fileBytes)
                } else {
                    previous = nil
                }
                if read.usedSharedEnds, let shared {
                    sharedReads.withLock { $0 += 1 }
                    // Kept without hashing a byte; only the bytes between them parsed and, when the
                    // middle holds them, read in place.
                    #expect(read.bytesHashedForKeptChunks == 0 && read.chunkHashesFromRead == 0, "\(version)")
                    #expect(read.parsedByteRange.count == read.parsedByteCount)
                    let middle = shared.prefix..<(bytes.count - shared.suffix)
                    let region = read.parsedByteRange
                    // (The header is read from the bytes before the records and one more, at least
                    // 3 — the first boundary after 0 or further — which a random cut of an earlier
                    // version may have left in two pieces.)
                    let header = 0..<min(bytes.count, max(boundaries[1] + 1, 3))
                    if split == .sharing, given.isContiguous(in: header), middle.lowerBound <= region.lowerBound,
                        region.upperBound <= middle.upperBound
                    {
                        inPlaceReads.withLock { $0 += 1 }
                        #expect(read.copiedByteCount == 0, "\(version): \(shared), \(read)")
                    }
                    #expect(read.copiedByteCount <= 2 * (read.parsedByteCount + 1) + 64, "\(version): \(read)")
                } else if split == .anyhow, read.wasIncremental || read.chunkCount > 0, given.pieces.count > 1 {
                    // Bytes in pieces read whole: one copy of them, for the while of the read.
                    #expect(read.copiedByteCount == bytes.count, "\(version): \(read)")
                }
            }
        }
        // The property above is about reads that used the ends: there were many.
        #expect(sharedReads.withLock { $0 } > 500)
        #expect(inPlaceReads.withLock { $0 } > 200)
    }

    /// A file of 4,000 rows in one of the shapes, with row `edited` changed.
    private static func file(_ shape: Int, edited: Int? = nil) -> (ReadOptions, [UInt8]) {
        let rows = 0..<4000
        func name(_ row: Int) -> String { row == edited ? "edited \(row)" : "name \(row)" }
        let text: String
        let options: ReadOptions
        switch shape {
        case 0, 1:
            let delimiter = shape == 0 ? "," : "\t"
            text = "id\(delimiter)name\n" + rows.map { "\($0)\(delimiter)\(name($0))\n" }.joined()
            options = ReadOptions(format: .csv(delimiter: shape == 0 ? .comma : .tab), key: ["id"])
        case 2:
            text = "id,s,name\r\n" + rows.map { "\($0),s\($0 % 3),\(name($0))\r\n" }.joined()
            options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"], sectionBy: "s")
        case 3:
            text = rows.map { #"{"id":\#($0),"name":"\#(name($0))"}"# + "\n" }.joined()
            options = ReadOptions(format: .ndjson, key: ["id"])
        case 4:
            text = "[\n" + rows.map { #"{"id":\#($0),"s":\#($0 % 3),"name":"\#(name($0))"}"# }.joined(separator: ",\n") + "\n]\n"
            options = ReadOptions(format: .json, key: ["id"], sectionBy: "s")
        default:
            let records = rows.map { #"{"id":\#($0),"name":"\#(name($0))"}"# }
            text = "{\n\"a\": [" + records[..<2000].joined(separator: ",\n") + "],\n\"b\": [" + records[2000...].joined(separator: ",\n") + "]\n}\n"
            options = ReadOptions(format: .json, key: ["id"])
        }
        return (options, Array(text.utf8))
    }

    /// A one-row edit in the middle of a large file, in every shape, handed over as the sharing
    /// read hands it: about one chunk parsed, in place, nothing hashed or copied, the end after
    /// it kept; the list holds the previous version's storage for the ends and reads every
    /// record as one pass does. An edit of the first row: the same, but for the header's few
    /// bytes, copied to read it (the shared start ends where the records start).
    @Test(arguments: 0..<6, [1000, 1]) func aOneRowEditInPiecesParsesTheMiddleInPlace(shape: Int, row: Int) throws {
        let (options, original) = Self.file(shape)
        let (_, edited) = Self.file(shape, edited: row)
        var reader = IncrementalListReader(options: options, chunkSize: 4096)
        let first = try reader.read(bytes: original)
        var rng: any SeededRandomNumberGenerator = Xoshiro(seed: (19, 1, 2, 3))
        let ends = Self.sharedEnds(of: edited, previous: original, boundaries: reader.chunkBoundaries, shorter: false, &rng)
        #expect(ends.prefix + ends.suffix > edited.count - 2 * 4096 - 100)
        let given =
            first.fileBytes[0..<ends.prefix] + FileBytes(Array(edited[ends.prefix..<(edited.count - ends.suffix)]))
            + first.fileBytes[(original.count - ends.suffix)..<original.count]
        let second = try reader.read(bytes: given, shared: ends)
        let read = reader.lastRead
        #expect(read.usedSharedEnds && read.wasIncremental)
        #expect(read.copiedByteCount <= (row == 1 ? 64 : 0) && read.bytesHashedForKeptChunks == 0, "\(read)")
        #expect(read.parsedByteRange == ends.prefix..<(edited.count - ends.suffix))
        #expect(read.keptSuffixByteCount == ends.suffix && read.keptPrefixByteCount == ends.prefix)
        // The list's bytes are the given pieces: the ends in the first version's array.
        #expect(second.fileBytes.pieces.count == (ends.prefix == 0 ? 2 : 3))
        #expect(second.fileBytes.storageByteCount < original.count + 3 * 4096)
        let reference = try ListReader(options: options).read(bytes: edited)
        #expect(Outcome { () throws(ListFormatError) in second } == Outcome { () throws(ListFormatError) in reference })
        #expect(second.values == reference.values)
    }
}
