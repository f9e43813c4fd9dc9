import DurableFiles
@testable import ListFormats
import ListSyncTestSupport
import PropertyBased
import Testing

/// Told the shared ends of a version whose previous one is held as a mapping of a file (the
/// daemon's state file, issue 19), the incremental reader leaves none of the mapping's pages in
/// the shared start resident: it checks a byte at each kept chunk's end of a line-based format,
/// and each such read maps a page (with the page cache's large folios, the folio around it). Left
/// mapped, every page of the shared start stayed resident after each one-row edit: 20 MiB of a
/// 1M-row NDJSON file after 32 edits, the daemon's growth over the edits.
struct SharedEndsMappedPagesTests {
    @Test(arguments: [ReadOptions(format: .ndjson, key: ["id"]), ReadOptions(format: .csv(delimiter: .comma), key: ["id"])])
    func theSharedStartOfAMappedVersionIsLeftUnmapped(options: ReadOptions) throws {
        let scratch = try ScratchDirectory(prefix: "smap")
        let rows = 0..<40_000
        func file(edited: Int?) -> [UInt8] {
            func name(_ row: Int) -> String { row == edited ? "edited \(row)" : "name \(row)" }
            let text: String
            if case .ndjson = options.format {
                text = rows.map { #"{"id":\#($0),"name":"\#(name($0))"}"# + "\n" }.joined()
            } else {
                text = "id,name\n" + rows.map { "\($0),\(name($0))\n" }.joined()
            }
            return Array(text.utf8)
        }
        let original = file(edited: nil)
        let edited = file(edited: 39_000)
        try FileContent.write(bytes: original, to: scratch.path("slot"))
        let region = try MappedFileRegion(path: scratch.path("slot"), count: original.count)
        let mapped = FileBytes(mapped: region)
        var reader = IncrementalListReader(options: options, chunkSize: 4096)
        let first = try reader.read(bytes: mapped)
        var rng: any SeededRandomNumberGenerator = Xoshiro(seed: (19, 7, 2, 3))
        let ends = SharedEndsReadTests.sharedEnds(of: edited, previous: original, boundaries: reader.chunkBoundaries, shorter: false, &rng)
        #expect(ends.prefix > original.count / 2)
        let given =
            first.fileBytes[0..<ends.prefix] + FileBytes(Array(edited[ends.prefix..<(edited.count - ends.suffix)]))
            + first.fileBytes[(original.count - ends.suffix)..<original.count]
        // As the sharing read leaves it: the ends compared, their pages let go of.
        mapped.releaseMappedPages()
        #expect(try region.residentBytes() == 0)
        let second = try reader.read(bytes: given, shared: ends)
        #expect(reader.lastRead.usedSharedEnds && reader.lastRead.keptPrefixByteCount == ends.prefix)
        let resident = try region.residentBytes()
        given.releaseMappedPages(in: 0..<ends.prefix)
        let outsideTheStart = try region.residentBytes()
        #expect(resident == outsideTheStart, "\(resident - outsideTheStart) bytes of the shared start left mapped by the read")
        #expect(second.fileBytes == FileBytes(edited))
    }

    /// A first read of a version held as a mapping (the daemon's first load, copied into its
    /// checkpoint slot and parsed from there) leaves no more than a few stretches of it resident:
    /// the parse lets the pages go as it goes, and so does the hashing of its chunks after it —
    /// which read the whole file again and left it all resident (issue 19: the load's peak).
    @Test(arguments: [ReadOptions(format: .ndjson, key: ["id"]), ReadOptions(format: .csv(delimiter: .comma), key: ["id"])])
    func aFirstReadOfAMappedVersionLeavesAFewStretchesResident(options: ReadOptions) throws {
        let scratch = try ScratchDirectory(prefix: "smap")
        let rows = 0..<420_000
        let text: String
        if case .ndjson = options.format {
            text = rows.map { #"{"id":\#($0),"name":"item number \#($0) of the first read"}"# + "\n" }.joined()
        } else {
            text = "id,name\n" + rows.map { "\($0),item number \($0) of the first read\n" }.joined()
        }
        let bytes = Array(text.utf8)
        try FileContent.write(bytes: bytes, to: scratch.path("slot"))
        let region = try MappedFileRegion(path: scratch.path("slot"), count: bytes.count)
        var reader = IncrementalListReader(options: options)
        let list = try reader.read(bytes: FileBytes(mapped: region))
        #expect(list.report.recordCount == rows.count)
        let resident = try region.residentBytes()
        #expect(bytes.count > 4 * FileBytes.mappedStretchLength)
        #expect(resident <= 2 * FileBytes.mappedStretchLength + (4 << 20), "\(resident) bytes of \(bytes.count) left resident by a first read")
    }

    /// Nor does it read them on the way: whether a kept chunk of a line-based format ends a
    /// line is kept with the chunk from the version it was read in (``IncrementalListReader``'s
    /// `Chunk.endsWithLineFeed`), where reading the byte again — of a version held as a mapping —
    /// mapped a page, or a large folio, at each chunk's end of the whole shared start until the
    /// read let it go: the transient that made the daemon's peak over one-row edits at spread
    /// places 1.7× a 1M-row NDJSON file (0.9× without; docs/BENCHMARKS.md). Here: what each
    /// chunk keeps is its bytes' truth, at every version of random edits read with shared ends,
    /// in CSV (a last line without its line feed, CRLF) and NDJSON. (How many pages a read maps is
    /// not measurable in a debug build, whose invariant checks read every byte.)
    @Test(arguments: [ReadOptions(format: .ndjson, key: ["id"]), ReadOptions(format: .csv(delimiter: .comma), key: ["id"])])
    func whetherAChunkEndsALineIsKeptWithItAcrossVersions(options: ReadOptions) throws {
        var rng: any SeededRandomNumberGenerator = Xoshiro(seed: (19, 7, 2, 5))
        var rows = (0..<3_000).map { "name \($0)" }
        func file(ending: String, lastLineEnded: Bool) -> [UInt8] {
            let lines: [String]
            if case .ndjson = options.format {
                lines = rows.indices.map { #"{"id":\#($0),"name":"\#(rows[$0])"}"# }
            } else {
                lines = ["id,name"] + rows.indices.map { "\($0),\(rows[$0])" }
            }
            return Array((lines.joined(separator: ending) + (lastLineEnded ? ending : "")).utf8)
        }
        var reader = IncrementalListReader(options: options, chunkSize: 512)
        var previous = FileBytes(file(ending: "\n", lastLineEnded: true))
        _ = try reader.read(bytes: previous)
        for step in 0..<40 {
            let index = Int.random(in: 0..<rows.count, using: &rng)
            rows[index] = "name \(index) v\(step)" + String(repeating: "x", count: Int.random(in: 0..<40, using: &rng))
            let bytes = file(ending: step % 7 == 3 ? "\r\n" : "\n", lastLineEnded: step % 5 != 4)
            let ends = SharedEndsReadTests.sharedEnds(
                of: bytes, previous: previous.array, boundaries: reader.chunkBoundaries, shorter: false, &rng)
            let list = try reader.read(bytes: FileBytes(bytes), shared: ends)
            let chunks = try #require(reader.memory?.chunks)
            for chunk in chunks {
                #expect(chunk.endsWithLineFeed == (bytes[chunk.end - 1] == UInt8(ascii: "\n")), "step \(step): chunk \(chunk.start)..<\(chunk.end)")
            }
            #expect(list.fileBytes == FileBytes(bytes))
            previous = FileBytes(bytes)
        }
    }
}
