import ListFormats
import ListSyncTestSupport
import PropertyBased
import Testing

@Suite struct ValueJSONTests {
    /// A CSV field as a file may spell it: quoted when it must be, sometimes when it need not be.
    static func spell(_ field: String, delimiter: Character, quoteAnyway: Bool) -> String {
        let special = Set<UInt8>([UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r")]).union(delimiter.utf8)
        guard field.utf8.contains(where: special.contains) || quoteAnyway else { return field }
        return "\"" + field.unicodeScalars.map { $0 == "\"" ? "\"\"" : String($0) }.joined() + "\""
    }

    /// A record's value written straight from its CSV row (``ParsedList/appendValueJSON(of:to:)``)
    /// is byte for byte what `JSONText.append(list.value(of: record))` writes: quoted fields with
    /// doubled quotes, line breaks and CRLF inside them, control characters, backslashes,
    /// non-ASCII text, a byte order mark, short rows padded, long rows cut, ignored columns, comma
    /// and tab delimiters.
    @Test func aCSVRecordsJSONEqualsItsValuesJSON() async {
        await propertyCheck(count: 400, input: Generators.table, Gen.int(in: 0...Int.max)) { table, seed in
            var rng = SplitMix(seed: UInt64(truncatingIfNeeded: seed))
            let delimiter: CSVDelimiter = Bool.random(using: &rng) ? .comma : .tab
            let separator: Character = delimiter == .comma ? "," : "\t"
            let lineEnd = Bool.random(using: &rng) ? "\n" : "\r\n"
            let ragged: RaggedRowPolicy = [.error, .pad, .truncate].randomElement(using: &rng) ?? .error
            var text = Bool.random(using: &rng) ? "\u{FEFF}" : ""
            text += table.columns.map { Self.spell($0, delimiter: separator, quoteAnyway: false) }.joined(separator: String(separator)) + lineEnd
            for row in table.rows {
                var fields = row
                if ragged == .pad, fields.count > 1, Bool.random(using: &rng) { fields.removeLast(Int.random(in: 1..<fields.count, using: &rng)) }
                if ragged == .truncate, Bool.random(using: &rng) { fields.append("extra\"x") }
                let spelled = fields.map { Self.spell($0, delimiter: separator, quoteAnyway: Int.random(in: 0..<4, using: &rng) == 0) }
                text += spelled.joined(separator: String(separator)) + lineEnd
            }
            let ignore = table.columns.count > 1 && Bool.random(using: &rng) ? [table.columns[1]] : []
            let list: ParsedList
            do {
                list = try Self.read(text, delimiter: delimiter, ragged: ragged, ignore: ignore)
            } catch {
                // A column name no field path spells: the same file without `ignore`.
                guard let plain = try? Self.read(text, delimiter: delimiter, ragged: ragged, ignore: []) else {
                    Issue.record("the generated file did not read: \(error)")
                    return
                }
                list = plain
            }
            for record in list.records {
                var direct: [UInt8] = []
                list.appendValueJSON(of: record, to: &direct)
                var viaValue: [UInt8] = []
                JSONText.append(list.value(of: record), to: &viaValue)
                #expect(direct == viaValue, "\(String(decoding: direct, as: UTF8.self)) ≠ \(String(decoding: viaValue, as: UTF8.self))")
            }
        }
    }

    /// A JSON list's records take the value's path: the same bytes.
    @Test func aJSONRecordsJSONEqualsItsValuesJSON() async {
        await propertyCheck(count: 200, input: Generators.record.array(of: 0...6)) { records in
            var text: [UInt8] = []
            for record in records {
                JSONText.append(record, to: &text)
                text.append(UInt8(ascii: "\n"))
            }
            guard let list = try? ListReader(options: ReadOptions(format: .ndjson)).read(bytes: text) else { return }
            for record in list.records {
                var direct: [UInt8] = []
                list.appendValueJSON(of: record, to: &direct)
                var viaValue: [UInt8] = []
                JSONText.append(list.value(of: record), to: &viaValue)
                #expect(direct == viaValue)
            }
        }
    }

    static func read(_ text: String, delimiter: CSVDelimiter, ragged: RaggedRowPolicy, ignore: [String]) throws -> ParsedList {
        try ListReader(options: ReadOptions(format: .csv(delimiter: delimiter), ignore: ignore, raggedRows: ragged)).read(bytes: Array(text.utf8))
    }
}
