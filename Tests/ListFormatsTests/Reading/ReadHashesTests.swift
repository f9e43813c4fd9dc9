import ListFormats
import PropertyBased
import Testing

/// The chunk hashes a file's read takes as its bytes come in (``IncrementalListReader/ReadHashes``)
/// stand for the hashes the reader takes after the read: the same list, the same chunks kept, in
/// every shape, whatever the pieces the bytes come in; hashes of other bytes are not used.
@Suite struct ReadHashesTests {
    /// The hashes `reader` asks for, taken as a read of `bytes` in pieces of about `pieceSize`
    /// bytes takes them — after an attempt abandoned halfway through other bytes, as a read that
    /// found the file moved starts again.
    static func hashesTaken(
        by reader: IncrementalListReader, reading bytes: [UInt8], pieceSize: Int, abandoning other: [UInt8]? = nil
    ) -> IncrementalListReader.ReadHashes? {
        guard var hashes = reader.hashesWhileReading() else { return nil }
        if let other {
            other.withUnsafeBytes { raw in
                hashes.begin(size: raw.count)
                hashes.follow(UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count / 2)]))
            }
        }
        bytes.withUnsafeBytes { raw in
            hashes.begin(size: raw.count)
            var filled = 0
            while filled < raw.count {
                filled = min(raw.count, filled + max(pieceSize, 1))
                hashes.follow(UnsafeRawBufferPointer(rebasing: raw[0..<filled]))
            }
        }
        return hashes
    }

    @Test func hashesTakenWhileReadingReadAsHashesTakenAfter() async {
        await propertyCheck(count: 1000, input: IncrementalListReaderTests.scenario) { scenario in
            var plain = IncrementalListReader(options: scenario.options, chunkSize: scenario.chunkSize, splitSize: scenario.splitSize)
            var hashed = plain
            let full = ListReader(options: scenario.options)
            var pieceSize = 1
            var previousBytes: [UInt8] = []
            for (number, bytes) in scenario.versions.enumerated() {
                let version = "version \(number): \(String(decoding: bytes, as: UTF8.self).debugDescription)"
                pieceSize = pieceSize * 7 % 97 + 1
                let hashes = Self.hashesTaken(by: hashed, reading: bytes, pieceSize: pieceSize, abandoning: previousBytes)
                #expect(hashed.mayBePreviousBytes(bytes, hashes: hashes) == plain.mayBePreviousBytes(bytes), "\(version)")
                let expected = IncrementalListReaderTests.Outcome { () throws(ListFormatError) in try full.read(bytes: bytes) }
                let unhashed = IncrementalListReaderTests.Outcome { () throws(ListFormatError) in try plain.read(bytes: bytes) }
                let actual = IncrementalListReaderTests.Outcome { () throws(ListFormatError) in try hashed.read(bytes: bytes, hashes: hashes) }
                #expect(actual.error == expected.error, "\(version)")
                #expect(actual.report == expected.report, "\(version)")
                #expect(actual.schema == expected.schema, "\(version)")
                #expect(actual.records == expected.records, "\(version)")
                #expect(actual.sections == expected.sections, "\(version)")
                #expect(unhashed.records == expected.records, "\(version)")
                // The same chunks kept, found with the read's hashes.
                var statistics = hashed.lastRead
                statistics.chunkHashesFromRead = plain.lastRead.chunkHashesFromRead
                statistics.bytesHashedForKeptChunks = plain.lastRead.bytesHashedForKeptChunks
                #expect(statistics == plain.lastRead, "\(version)")
                #expect(hashed.lastRead.bytesHashedForKeptChunks <= plain.lastRead.bytesHashedForKeptChunks, "\(version)")
                previousBytes = bytes
            }
        }
    }

    /// Whether `list` is what one pass of ``ListReader`` reads from `bytes`.
    private static func onePass(_ list: ParsedList, _ options: ReadOptions, _ bytes: [UInt8]) -> Bool {
        IncrementalListReaderTests.Outcome { () throws(ListFormatError) in list }
            == IncrementalListReaderTests.Outcome { () throws(ListFormatError) in try ListReader(options: options).read(bytes: bytes) }
    }

    private static func files(rows: Range<Int>, edited: Int? = nil) -> [(ReadOptions, [UInt8])] {
        func name(_ row: Int) -> String { row == edited ? "edited name \(row)" : "name \(row)" }
        let csv = "id,name\n" + rows.map { "\($0),\(name($0))\n" }.joined()
        let lines = rows.map { #"{"id":\#($0),"name":"\#(name($0))"}"# }
        return [
            (ReadOptions(format: .csv(delimiter: .comma), key: ["id"]), Array(csv.utf8)),
            (ReadOptions(format: .ndjson, key: ["id"]), Array((lines.joined(separator: "\n") + "\n").utf8)),
            (ReadOptions(format: .json, key: ["id"]), Array(("[\n" + lines.joined(separator: ",\n") + "\n]\n").utf8)),
        ]
    }

    /// A one-row edit (longer by 7 bytes) and the same bytes again: every hash the search for
    /// kept chunks compares was taken by the read; nothing is hashed after it.
    @Test func aOneRowEditIsHashedOnlyWhileReading() throws {
        for ((options, original), (_, edited)) in zip(Self.files(rows: 0..<5000), Self.files(rows: 0..<5000, edited: 2500)) {
            var reader = IncrementalListReader(options: options, chunkSize: 1024)
            _ = try reader.read(bytes: original)
            for bytes in [edited, edited] {
                let hashes = Self.hashesTaken(by: reader, reading: bytes, pieceSize: 4096)
                let list = try reader.read(bytes: bytes, hashes: hashes)
                #expect(reader.lastRead.wasIncremental, "\(options.format)")
                #expect(reader.lastRead.keptChunkCount >= reader.lastRead.chunkCount - 2, "\(options.format)")
                #expect(reader.lastRead.chunkHashesFromRead > reader.lastRead.keptChunkCount - 1, "\(options.format)")
                #expect(reader.lastRead.bytesHashedForKeptChunks == 0, "\(options.format)")
                #expect(Self.onePass(list, options, bytes), "\(options.format)")
            }
        }
    }

    /// Hashes taken from other bytes — another buffer with the same content, a read cut short,
    /// or for a version the reader has moved on from — are not used; the reader hashes itself.
    @Test func hashesOfOtherBytesAreNotUsed() throws {
        let (options, original) = Self.files(rows: 0..<3000)[1]
        let (_, edited) = Self.files(rows: 0..<3000, edited: 1500)[1]
        var reader = IncrementalListReader(options: options, chunkSize: 1024)
        _ = try reader.read(bytes: original)
        let copy = edited.map { $0 }  // Equal bytes, other storage.
        #expect(copy.withUnsafeBytes { $0.baseAddress } != edited.withUnsafeBytes { $0.baseAddress })
        let fromCopy = Self.hashesTaken(by: reader, reading: copy, pieceSize: 4096)
        let stale = reader
        _ = try reader.read(bytes: edited, hashes: fromCopy)
        #expect(reader.lastRead.chunkHashesFromRead == 0)
        #expect(reader.lastRead.bytesHashedForKeptChunks > 0)

        // Hashes for the version before: the reader moved on.
        let fromStale = Self.hashesTaken(by: stale, reading: original, pieceSize: 4096)
        _ = try reader.read(bytes: original, hashes: fromStale)
        #expect(reader.lastRead.chunkHashesFromRead == 0)

        // A read that stopped halfway.
        var partial = try #require(reader.hashesWhileReading())
        edited.withUnsafeBytes { raw in
            partial.begin(size: raw.count)
            partial.follow(UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count / 2)]))
        }
        let list = try reader.read(bytes: edited, hashes: partial)
        #expect(reader.lastRead.chunkHashesFromRead == 0)
        #expect(Self.onePass(list, options, edited))
    }
}
