import DurableFiles
import ListFormats
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
}
