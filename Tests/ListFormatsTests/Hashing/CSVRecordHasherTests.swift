import ListFormats
import Testing

/// A CSV record's content hash recomputed from its fields alone equals the reader's, whatever
/// the delimiter, quoting, keys and ignored columns: what a sink's `--verify` relies on.
@Suite struct CSVRecordHasherTests {
    @Test(arguments: CSVDelimiter.allCases) func theHashOfTheFieldsIsTheReadersHash(delimiter: CSVDelimiter) throws {
        let separator = String(UnicodeScalar(delimiter.rawValue))
        let rows = [
            ["id", "name", "note"],
            ["1", "plain", "x"],
            ["2", "\"with \"\"quotes\"\"\"", "\"a\(separator)b\""],
            ["3", "\"two\nlines\"", ""],
            ["4", "\"quoted for nothing\"", "ü"],
        ]
        let text = rows.map { $0.joined(separator: separator) }.joined(separator: "\n") + "\n"
        for key in [[], ["id"]] {
            let list = try read(text, .csv(delimiter: delimiter), key: key)
            let hasher = CSVRecordHasher(columns: list.schema, delimiter: delimiter)
            for record in list.records {
                guard case .object(let members) = list.value(of: record) else { Issue.record("not an object"); continue }
                #expect(hasher.contentHash(of: members.map { $0.value.text }) == record.contentHash)
            }
            // Another delimiter gives other hashes.
            let other = CSVRecordHasher(columns: list.schema, delimiter: delimiter == .comma ? .tab : .comma)
            let fields = ["1", "plain", "x"]
            #expect(other.contentHash(of: fields) != hasher.contentHash(of: fields))
        }
        // Without the ignored column, as published.
        let list = try read(text, .csv(delimiter: delimiter), ignore: ["note"])
        let hasher = CSVRecordHasher(columns: list.schema, delimiter: delimiter)
        #expect(list.schema.columns == ["id", "name"])
        for record in list.records {
            guard case .object(let members) = list.value(of: record) else { continue }
            #expect(hasher.contentHash(of: members.map { $0.value.text }) == record.contentHash)
        }
    }
}
