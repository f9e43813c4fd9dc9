import DurableFiles
import ListDiff
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import NIOCore
import Testing
@testable import ListSyncDaemon

/// Issue 19: a long changeset line held as a mapping (``ChangesetLineSpool``) is cut into the
/// same parts as the line in memory, and a subscriber sending them leaves none of the line's
/// pages resident after the cutter laid it out, nor after any part: sending a changeset of
/// every row costs a part, not the line.
@Suite struct ChangesetPartsInFlightTests {
    @Test func aMappedLineIsCutIntoTheSamePartsAndLetGoOfAsTheyAreSent() throws {
        let directory = try ScratchDirectory()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        func list(_ version: Int) throws -> ParsedList {
            try ListReader(options: options).read(
                bytes: Array(("id,name\n" + (0..<20_000).map { "\($0),row \($0) in version \(version)\n" }.joined()).utf8))
        }
        let (old, new) = (try list(0), try list(1))
        let line = ServerMessage.encodedChangeset(
            watch: "w", cursor: Cursor(epoch: Epoch(rawValue: 1), seq: 1), digest: ListDigest(of: new, version: .v2), schema: nil,
            changeset: StagedChangeset(source: old.sections, target: new.sections), source: old, target: new)
        try FileContent.write(String(decoding: line, as: UTF8.self), to: directory.path("line"))
        let region = try MappedFileRegion(path: directory.path("line"), count: line.count)
        let bound = 64 << 10
        let expected = try #require(ChangesetParts.split(line, targetSize: bound))
        #expect(expected.count > 10)

        let parts = try #require(ChangesetPartsInFlight(line: FileBytes(mapped: region), bound: bound, budget: nil))
        #expect(try region.residentBytes() == 0, "laid out, the line is let go of")
        var sent: [[UInt8]] = []
        while var part = parts.nextPart() {
            sent.append(part.readBytes(length: part.readableBytes) ?? [])
            #expect(try region.residentBytes() == 0, "part \(sent.count - 1)")
        }
        #expect(sent == expected)
    }
}
