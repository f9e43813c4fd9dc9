import ListDiff
import ListFormats
import ListSyncProtocol
import Testing

@Suite struct ListDigestTests {
    /// Hashes with distinct bytes in every position, so byte order mistakes show.
    static func hash(_ seed: UInt64) -> ContentHash {
        ContentHash(low: 0x0102_0304_0506_0708 &* seed, high: 0x1112_1314_1516_1718 &+ seed)
    }

    static func digest(_ sections: [(model: ContentHash, records: [ContentHash])]) -> ListDigest {
        var builder = ListDigest.Builder()
        for section in sections {
            builder.beginSection(modelHash: section.model, recordCount: section.records.count)
            for record in section.records { builder.addRecord(record) }
        }
        return builder.finish()
    }

    static func pythonDigest(_ sections: [(model: ContentHash, records: [ContentHash])]) throws -> String {
        try Python.run(Python.digestScript, input: sections.map { ["model": $0.model.description, "records": $0.records.map(\.description)] })
    }

    @Test func matchesPythonHashlib() throws {
        let cases: [[(model: ContentHash, records: [ContentHash])]] = [
            [],
            [(Self.hash(1), [])],
            [(Self.hash(1), [Self.hash(2)])],
            [(Self.hash(1), (2..<40).map(Self.hash)), (Self.hash(99), []), (Self.hash(100), [Self.hash(7), Self.hash(7)])],
            // More than one 64 KiB buffer of input.
            [(Self.hash(3), (0..<10_000).map(Self.hash))],
        ]
        for sections in cases {
            #expect(Self.digest(sections).description == (try Self.pythonDigest(sections)))
        }
    }

    @Test func digestsAParsedListThroughItsRecordHashes() throws {
        let list = try Lines.csv("id,name\n1,a\n2,b\n3,\"c,d\"\n")
        let digest = ListDigest(sections: list.sections)
        let python = try Self.pythonDigest([(ListValue.null.contentHash, list.records.map(\.contentHash))])
        #expect(digest.description == python)
    }

    @Test func dependsOnSectionBoundaries() {
        let records = (0..<4).map(Self.hash)
        let one = Self.digest([(Self.hash(9), records)])
        let two = Self.digest([(Self.hash(9), Array(records[..<2])), (Self.hash(9), Array(records[2...]))])
        #expect(one != two)
    }

    @Test func parsesAndPrintsHex() {
        let text = "00ff" + String(repeating: "a1", count: 30)
        #expect(ListDigest(text)?.description == text)
        #expect(ListDigest(text.uppercased())?.description == text)
        #expect(ListDigest(String(text.dropLast())) == nil)
        #expect(ListDigest(String(text.dropLast()) + "g") == nil)
        #expect(ListDigest(bytes: [1, 2]) == nil)
    }
}
