import ListDiff
import ListFormats
import ListSyncProtocol
import Testing

@Suite struct SnapshotEncoderTests {
    static let cursor = Cursor(epoch: Epoch(rawValue: 77), seq: 5)

    /// Every chunk of `list`, decoded.
    static func chunks(of list: ParsedList, target: Int) throws -> [SnapshotChunk] {
        var encoder = SnapshotEncoder(
            watch: "w", cursor: cursor, list: list,
            digest: ListDigest(of: list), targetChunkSize: target)
        var chunks: [SnapshotChunk] = []
        while let line = encoder.nextChunk() {
            guard case .snapshot(let chunk) = try Lines.decodeServer(line) else {
                throw Lines.Failure(description: "not a snapshot")
            }
            chunks.append(chunk)
        }
        #expect(encoder.isFinished)
        return chunks
    }

    static func sectionedList(rows: Int) throws -> ParsedList {
        var text = "id,group,name\n"
        for row in 0..<rows {
            text += "\(row),g\(row % 3),name \(row) with some padding to make the line longer\n"
        }
        return try Lines.csv(text, sectionBy: "group")
    }

    @Test func reassemblesTheWholeListInOrder() throws {
        let list = try Self.sectionedList(rows: 500)
        let chunks = try Self.chunks(of: list, target: 4096)
        #expect(chunks.count > 5)
        #expect(chunks.map(\.chunk) == Array(0..<chunks.count))
        #expect(chunks.map(\.last) == Array(repeating: false, count: chunks.count - 1) + [true])
        #expect(chunks.dropLast().allSatisfy { $0.digest == nil })
        var records: [[ChangesetStage.Record]] = Array(repeating: [], count: list.sections.count)
        var models: [ChangesetStage.Section?] = Array(repeating: nil, count: list.sections.count)
        for section in chunks.flatMap(\.sections) {
            records[section.index] += section.records
            models[section.index] = section.section
        }
        #expect(models == list.sections.map { ChangesetStage.Section($0.model) })
        for (index, section) in list.sections.enumerated() {
            #expect(records[index] == section.elements.map { ChangesetStage.Record($0, of: list) })
        }
        #expect(chunks.last?.digest == ListDigest(of: list))
    }

    @Test func keepsChunksNearTheTargetSize() throws {
        let list = try Self.sectionedList(rows: 3000)
        var encoder = SnapshotEncoder(
            watch: "w", cursor: Self.cursor, list: list,
            digest: ListDigest(of: list), targetChunkSize: 16 << 10)
        var sizes: [Int] = []
        while let line = encoder.nextChunk() { sizes.append(line.count) }
        #expect(sizes.dropLast().allSatisfy { (16 << 10)...((16 << 10) + 512) ~= $0 })
    }

    @Test func sendsEmptyListsAndEmptySectionsInOneChunk() throws {
        let empty = try Lines.csv("id,name\n")
        let chunks = try Self.chunks(of: empty, target: 1024)
        #expect(chunks.count == 1)
        #expect(chunks.first?.sections == [SnapshotSection(index: 0, section: .init(model: .null, hash: ListValue.null.contentHash), records: [])])
        #expect(chunks.first?.last == true)
        #expect(chunks.first?.schema == ListSchema(columns: ["id", "name"]))

        let withEmptySection = try ListReader(options: ReadOptions(format: .json, key: ["id"])).read(bytes: Array(#"{"a":[{"id":1}],"b":[],"c":[{"id":2}]}"#.utf8))
        let sections = try Self.chunks(of: withEmptySection, target: 1 << 20).flatMap(\.sections)
        #expect(sections.map(\.index) == [0, 1, 2])
        #expect(sections.map(\.records.count) == [1, 0, 1])
    }

    @Test func continuesASectionInTheNextChunkWithTheSameIndex() throws {
        let list = try Lines.csv("id,name\n" + (0..<50).map { "\($0),\(String(repeating: "x", count: 100))\n" }.joined())
        let chunks = try Self.chunks(of: list, target: 1000)
        #expect(chunks.count > 2)
        #expect(chunks.allSatisfy { $0.sections.map(\.index) == [0] })
        #expect(chunks.map(\.sections[0].records.count).reduce(0, +) == 50)
    }
}
