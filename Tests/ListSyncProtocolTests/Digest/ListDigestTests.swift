import ListDiff
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

@Suite struct ListDigestTests {
    /// Hashes with distinct bytes in every position, so byte order mistakes show.
    static func hash(_ seed: UInt64) -> ContentHash {
        ContentHash(low: 0x0102_0304_0506_0708 &* seed, high: 0x1112_1314_1516_1718 &+ seed)
    }

    typealias Sections = [(model: ContentHash, records: [ContentHash])]

    static func digest(_ sections: Sections, columns: [String] = []) -> ListDigest {
        var builder = ListDigest.Builder(schema: ListSchema(columns: columns))
        for section in sections {
            builder.beginSection(modelHash: section.model, recordCount: section.records.count)
            for record in section.records { builder.addRecord(record) }
        }
        return builder.finish()
    }

    static func pythonDigest(_ sections: Sections, columns: [String] = []) async throws -> String {
        try await Python.run(
            Python.digestScript,
            input: [
                "columns": columns,
                "sections": sections.map { ["model": $0.model.description, "records": $0.records.map(\.description)] },
            ] as [String: Any])
    }

    @Test func matchesPythonHashlib() async throws {
        let cases: [[(model: ContentHash, records: [ContentHash])]] = [
            [],
            [(Self.hash(1), [])],
            [(Self.hash(1), [Self.hash(2)])],
            [(Self.hash(1), (2..<40).map(Self.hash)), (Self.hash(99), []), (Self.hash(100), [Self.hash(7), Self.hash(7)])],
            // More than one 64 KiB buffer of input.
            [(Self.hash(3), (0..<10_000).map(Self.hash))],
        ]
        for sections in cases {
            #expect(Self.digest(sections).description == (try await Self.pythonDigest(sections)))
        }
    }

    @Test func digestsAParsedListThroughItsRecordHashes() async throws {
        let list = try Lines.csv("id,name\n1,a\n2,b\n3,\"c,d\"\n")
        let digest = ListDigest(of: list)
        let python = try await Self.pythonDigest([(ListValue.null.contentHash, list.records.map(\.contentHash))], columns: ["id", "name"])
        #expect(digest.description == python)
    }

    /// The schema block, computed by Python's hashlib from the names alone: names of every
    /// length class, non-ASCII ones (lengths in bytes, not characters) and none at all.
    @Test func schemaBlockMatchesPythonHashlib() async throws {
        let schemas: [[String]] = [[], ["id"], ["id", "Company", "Sécurité", "名前", ""], (0..<300).map { "column \($0)" }]
        let sections: Sections = [(Self.hash(1), [Self.hash(2), Self.hash(3)])]
        for columns in schemas {
            #expect(Self.digest(sections, columns: columns).description == (try await Self.pythonDigest(sections, columns: columns)))
            #expect(Self.digest([], columns: columns).description == (try await Self.pythonDigest([], columns: columns)))
        }
    }

    /// A rename changes the digest even of an empty list; so does a new order of the columns,
    /// and the boundary between two names (length prefixes, not separators).
    @Test func coversTheColumnNames() throws {
        let empty: Sections = []
        #expect(Self.digest(empty, columns: ["id", "Security"]) != Self.digest(empty, columns: ["id", "Company"]))
        #expect(Self.digest(empty, columns: ["id", "name"]) != Self.digest(empty, columns: ["name", "id"]))
        #expect(Self.digest(empty, columns: ["ab", "c"]) != Self.digest(empty, columns: ["a", "bc"]))
        let renamed = try Lines.csv("id,Company\n1,a\n")
        let original = try Lines.csv("id,Security\n1,a\n")
        #expect(ListDigest(of: renamed) != ListDigest(of: original))
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
