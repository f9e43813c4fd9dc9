import ListDiff
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// The daemon encodes a changeset straight from the records' bytes into its line
/// (``ServerMessage/encodedChangeset(watch:cursor:digest:v1Digest:schema:changeset:source:target:)``,
/// issue 19): byte for byte what the encoding of the changeset's stages as values writes — each
/// record's published value decoded and its key read, as `ChangesetEncoder` built them before,
/// written as the tree of values *Changeset encoding* in docs/PROTOCOL.md describes — for random
/// lists and edits in every format: CSV and TSV (quotes, line breaks inside fields, CRLF), NDJSON
/// and JSON arrays (spacing, member order, `\u` escapes, numbers as written, nested values),
/// linear and sectioned, keyed or not, with ignored fields or not.
@Suite struct ChangesetRecordEncodingTests {
    @Test func theLineWrittenFromTheRecordsBytesIsTheOneWrittenFromTheirValues() throws {
        var rng = SplitMix(seed: 0x19_e7e7)
        var compared = 0
        for round in 0..<240 {
            let format = [ListFormat.csv(delimiter: .comma), .csv(delimiter: .tab), .ndjson, .json][round % 4]
            let options = ReadOptions(
                format: format, key: Bool.random(using: &rng) ? ["id"] : [], sectionBy: Int.random(in: 0..<3, using: &rng) == 0 ? "group" : nil,
                ignore: Bool.random(using: &rng) ? ["note"] : [])
            var rows = (0..<Int.random(in: 0...30, using: &rng)).map { Row(id: $0, using: &rng) }
            let old = try ListReader(options: options).read(bytes: Array(Self.text(rows, format: format, using: &rng).utf8))
            rows = Self.edited(rows, using: &rng)
            let new = try ListReader(options: options).read(bytes: Array(Self.text(rows, format: format, using: &rng).utf8))

            let changeset = StagedChangeset(source: old.sections, target: new.sections)
            let expected = Self.treeEncoding(Self.stagesAsValues(changeset, source: old, target: new))
            let direct = ChangesetEncoder.encode(changeset, source: old, target: new)
            Self.expectSame(direct, expected, "round \(round) (\(options))")
            #expect(ChangesetEncoder.stages(of: changeset, source: old, target: new) == Self.stagesAsValues(changeset, source: old, target: new))

            let cursor = Cursor(epoch: Epoch(rawValue: 0x5eed), seq: UInt64(round + 1))
            let schema = SchemaUpdate(from: old, to: new)
            let line = ServerMessage.encodedChangeset(
                watch: "w", cursor: cursor, digest: ListDigest(of: new, version: .v2), v1Digest: ListDigest(of: new), schema: schema,
                changeset: changeset, source: old, target: new)
            let lineFromValues = ServerMessage.encodedChangeset(
                watch: "w", cursor: cursor, digest: ListDigest(of: new, version: .v2), v1Digest: ListDigest(of: new), schema: schema,
                stagesJSON: expected)
            Self.expectSame(line, lineFromValues, "round \(round), the line")

            if !old.isSectioned {
                let linear = StagedChangeset(source: old.records, target: new.records)
                let linearExpected = Self.treeEncoding(Self.stagesAsValues(linear, source: old, target: new))
                Self.expectSame(ChangesetEncoder.encode(linear, source: old, target: new), linearExpected, "round \(round), linear")
            }
            if !changeset.isEmpty { compared += 1 }
        }
        #expect(compared > 150, "most rounds change something")
    }

    /// Records the two encodings as text when they differ (the bytes would drown it).
    static func expectSame(_ bytes: [UInt8], _ expected: [UInt8], _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard bytes != expected else { return }
        Issue.record("\(context): \(String(decoding: bytes, as: UTF8.self)) ≠ \(String(decoding: expected, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    // MARK: The reference: each record's value and key decoded, the stages encoded as a tree of values.

    static func treeEncoding(_ stages: [ChangesetStage]) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONText.append(.array(stages.map(ChangesetDirectEncodingTests.tree)), to: &bytes)
        return bytes
    }

    /// The stages with every record's published value and key decoded from its list, as the
    /// encoder built them before it wrote records from their bytes.
    static func stagesAsValues(
        _ changeset: StagedChangeset<[ArraySection<SectionModel, ListRecord>]>, source: ParsedList, target: ParsedList
    ) -> [ChangesetStage] {
        let sourceSections = source.sections
        let targetSections = target.sections
        return changeset.map { stage in
            stageAsValues(
                stage, source: source, target: target, section: { stage.section(at: $0) }, record: { stage.element(at: $0) },
                sourceRecord: { sourceSections[$0.section].elements[$0.element] }, targetRecord: { targetSections[$0.section].elements[$0.element] })
        }
    }

    static func stagesAsValues(_ changeset: StagedChangeset<[ListRecord]>, source: ParsedList, target: ParsedList) -> [ChangesetStage] {
        let sourceRecords = source.records
        let targetRecords = target.records
        return changeset.map { stage in
            stageAsValues(
                stage, source: source, target: target, section: { _ in ArraySection(model: SectionModel(value: .null), elements: []) },
                record: { stage.element(at: $0.element) }, sourceRecord: { sourceRecords[$0.element] }, targetRecord: { targetRecords[$0.element] })
        }
    }

    private static func stageAsValues<Collection>(
        _ stage: Changeset<Collection>, source: ParsedList, target: ParsedList, section: (Int) -> ArraySection<SectionModel, ListRecord>,
        record: (ElementPath) -> ListRecord, sourceRecord: (ElementPath) -> ListRecord, targetRecord: (ElementPath) -> ListRecord
    ) -> ChangesetStage {
        func value(_ record: ListRecord) -> ChangesetStage.Record {
            ChangesetStage.Record(value: target.value(of: record), hash: record.contentHash)
        }
        func placed(_ path: ElementPath) -> ChangesetStage.PlacedRecord {
            let placed = record(path)
            return ChangesetStage.PlacedRecord(path: path, record: value(placed), key: target.key(of: placed))
        }
        return ChangesetStage(
            sectionDeleted: stage.sectionDeleted,
            sectionInserted: stage.sectionInserted.map { index in
                let inserted = section(index)
                return ChangesetStage.InsertedSection(index: index, section: ChangesetStage.Section(inserted.model), records: inserted.elements.map(value))
            },
            sectionMoved: stage.sectionMoved.map { ChangesetStage.Move(source: $0.source, target: $0.target) },
            sectionUpdated: stage.sectionUpdated.map { ChangesetStage.UpdatedSection(index: $0, section: ChangesetStage.Section(section($0).model)) },
            elementDeleted: stage.elementDeleted, elementInserted: stage.elementInserted.map(placed), elementUpdated: stage.elementUpdated.map(placed),
            elementMoved: stage.elementMoved.map { ChangesetStage.Move(source: $0.source, target: $0.target) },
            elementDeletedKeys: target.hasKey ? stage.elementDeleted.map { source.key(of: sourceRecord($0)) ?? [] } : [],
            elementMovedKeys: target.hasKey ? stage.elementMoved.map { target.key(of: targetRecord($0.target)) ?? [] } : [])
    }

    // MARK: Random lists

    struct Row {
        var id: Int
        var group: Int
        var name: String
        var note: String
        var number: String
        var extra: String?

        static let texts = ["plain", "a,b", "say \"hi\"", "two\nlines", "crlf\r\ninside", "tab\there", "back\\slash", "Zoë", "中文 𝄞", "", "\u{1}ctl", "slash/"]
        /// Texts a TSV field holds as they are (no tab, line break or quote).
        static let tsvTexts = ["plain", "a,b", "back\\slash", "Zoë", "中文 𝄞", "", "slash/"]
        static let numbers = ["0", "-12", "3.50", "1e3", "-0.0", "12345678901234567890", "2E-7"]
        /// JSON values, as written, for a member only some records have.
        static let extras = [#"{"a" : [1, "x", null], "b": true}"#, "[ ]", "false", #""\u00e9\/""#, "-1.250"]

        init(id: Int, using rng: inout SplitMix) {
            self.id = id
            self.group = Int.random(in: 0..<3, using: &rng)
            self.name = Self.texts[Int.random(in: 0..<Self.texts.count, using: &rng)]
            self.note = Self.texts[Int.random(in: 0..<Self.texts.count, using: &rng)]
            self.number = Self.numbers[Int.random(in: 0..<Self.numbers.count, using: &rng)]
            self.extra = Bool.random(using: &rng) ? Self.extras[Int.random(in: 0..<Self.extras.count, using: &rng)] : nil
        }
    }

    /// `rows` with some updated (each field or another), deleted, inserted and moved.
    static func edited(_ rows: [Row], using rng: inout SplitMix) -> [Row] {
        var rows = rows
        let everyRow = Int.random(in: 0..<4, using: &rng) == 0
        for index in rows.indices where everyRow || Int.random(in: 0..<3, using: &rng) == 0 {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: rows[index].name = Row.texts[Int.random(in: 0..<Row.texts.count, using: &rng)] + "!"
            case 1: rows[index].note = Row.texts[Int.random(in: 0..<Row.texts.count, using: &rng)]
            case 2: rows[index].number = Row.numbers[Int.random(in: 0..<Row.numbers.count, using: &rng)]
            default: rows[index].group = (rows[index].group + 1) % 3
            }
        }
        for _ in 0..<Int.random(in: 0...3, using: &rng) where !rows.isEmpty {
            rows.remove(at: Int.random(in: 0..<rows.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            rows.insert(Row(id: 1000 + Int.random(in: 0..<1000, using: &rng), using: &rng), at: Int.random(in: 0...rows.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) where rows.count > 1 {
            let moved = rows.remove(at: Int.random(in: 0..<rows.count, using: &rng))
            rows.insert(moved, at: Int.random(in: 0...rows.count, using: &rng))
        }
        return rows
    }

    /// The file of `rows` in `format`, spelled in one of the ways the format allows.
    static func text(_ rows: [Row], format: ListFormat, using rng: inout SplitMix) -> String {
        switch format {
        case .csv(let delimiter) where delimiter == .tab:
            return "id\tgroup\tname\tnote\tn\n"
                + rows.map { row in
                    let tsv = { (text: String) in Row.tsvTexts.contains(text) ? text : "x" + String(text.unicodeScalars.count) }
                    return "\(row.id)\tg\(row.group)\t\(tsv(row.name))\t\(tsv(row.note))\t\(row.number)\n"
                }.joined()
        case .csv:
            func field(_ text: String) -> String {
                text.unicodeScalars.contains(where: { ",\"\n\r".unicodeScalars.contains($0) }) || Bool.random(using: &rng) && !text.isEmpty
                    ? "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\"" : text
            }
            return "id,group,name,note,n\r\n"
                + rows.map { row in
                    "\(row.id),g\(row.group),\(field(row.name)),\(field(row.note)),\(row.number)" + (Bool.random(using: &rng) ? "\n" : "\r\n")
                }.joined()
        case .ndjson, .json:
            let objects = rows.map { row in
                var members = [
                    "\"id\"" + Self.colon(using: &rng) + String(row.id), "\"group\"" + Self.colon(using: &rng) + "\"g\(row.group)\"",
                    "\"name\"" + Self.colon(using: &rng) + Self.jsonString(row.name, using: &rng),
                    "\"note\"" + Self.colon(using: &rng) + Self.jsonString(row.note, using: &rng),
                    "\"n\"" + Self.colon(using: &rng) + row.number,
                ]
                if let extra = row.extra { members.append("\"extra\"" + Self.colon(using: &rng) + extra) }
                if Bool.random(using: &rng) { members.swapAt(1, members.count - 1) }
                return "{" + members.joined(separator: Bool.random(using: &rng) ? ", " : ",") + "}"
            }
            if case .ndjson = format { return objects.map { $0 + "\n" }.joined() }
            return "[\n  " + objects.joined(separator: ",\n  ") + "\n]\n"
        }
    }

    private static func colon(using rng: inout SplitMix) -> String {
        Bool.random(using: &rng) ? ":" : " : "
    }

    /// `text` as a JSON string, with escapes a writer may choose: non-ASCII as `\u` (surrogate
    /// pairs beyond the BMP), `/` as `\/`.
    static func jsonString(_ text: String, using rng: inout SplitMix) -> String {
        let escapeAll = Bool.random(using: &rng)
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += escapeAll ? "\\u0009" : "\\t"
            case "/": out += escapeAll ? "\\/" : "/"
            case _ where scalar.value < 0x20 || (escapeAll && scalar.value > 0x7e):
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
