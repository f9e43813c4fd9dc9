import ListDiff
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

@Suite struct SnapshotEncoderBytesTests {
    static let cursor = Cursor(epoch: Epoch(rawValue: 9), seq: 3)

    /// A CSV file of `rows` rows with quoted fields, doubled quotes, line breaks, tabs,
    /// backslashes and non-ASCII text; `group` is a column with a few values to section by.
    static func csv(rows: Int, using rng: inout SplitMix) -> String {
        let pieces = ["plain", "a,b", "say \"\"hi\"\"", "two\nlines", "crlf\r\ninside", "tab\there", "back\\slash", "Zoë", "中文", "", "\u{1}"]
        var text = "id,group,name,note\n"
        for row in 0..<rows {
            let name = pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            let note = pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            let quoted = { (field: String) in "\"" + field + "\"" }
            text += "\(row),g\(Int.random(in: 0..<4, using: &rng)),\(quoted(name)),\(quoted(note))\(Bool.random(using: &rng) ? "\n" : "\r\n")"
        }
        return text
    }

    /// The lines the chunker writes from each record's decoded value (`ListValue`): the
    /// encoding every snapshot had before records were written straight from their rows.
    static func linesFromValues(of list: ParsedList, target: Int) -> [[UInt8]] {
        var chunker = SnapshotChunker(watch: "w", cursor: cursor, sectioned: list.isSectioned, schema: list.schema, targetChunkSize: target)
        let sections = list.sections
        var lines: [[UInt8]] = []
        while let line = chunker.nextChunk(
            sectionCount: sections.count,
            section: { index in (sections[index].model.value, sections[index].model.contentHash, sections[index].elements.count) },
            record: { section, index in
                let record = sections[section].elements[index]
                return (list.value(of: record), record.contentHash)
            },
            digest: ListDigest(of: list))
        {
            lines.append(line)
        }
        return lines
    }

    /// ``SnapshotEncoder``'s lines, records written straight from their rows, are byte for byte
    /// the lines written from the records' values, for linear and sectioned CSV lists, with
    /// ignored columns or not, at several chunk sizes.
    @Test func linesEqualThoseWrittenFromValues() throws {
        for seed in 0..<120 {
            var rng = SplitMix(seed: UInt64(seed))
            let text = Self.csv(rows: Int.random(in: 0...60, using: &rng), using: &rng)
            let sectionBy = Bool.random(using: &rng) ? "group" : nil
            let ignore = Bool.random(using: &rng) ? ["note"] : []
            let list = try ListReader(options: ReadOptions(format: .csv(delimiter: .comma), key: ["id"], sectionBy: sectionBy, ignore: ignore))
                .read(bytes: Array(text.utf8))
            let target = [1, 200, 4096].randomElement(using: &rng) ?? 200
            var encoder = SnapshotEncoder(watch: "w", cursor: Self.cursor, list: list, digest: ListDigest(of: list), targetChunkSize: target)
            var lines: [[UInt8]] = []
            while let line = encoder.nextChunk() { lines.append(line) }
            let expected = Self.linesFromValues(of: list, target: target)
            #expect(lines.count == expected.count, "seed \(seed)")
            // The first line that differs, as text (the whole snapshot would drown it).
            if let index = lines.indices.first(where: { $0 < expected.count && lines[$0] != expected[$0] }) {
                Issue.record("seed \(seed), chunk \(index): \(String(decoding: lines[index], as: UTF8.self)) ≠ \(String(decoding: expected[index], as: UTF8.self))")
            }
        }
    }
}
