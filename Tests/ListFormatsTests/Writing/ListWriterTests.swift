import ListFormats
import PropertyBased
import Testing

@Suite struct ListWriterTests {
    private func text(_ document: ListDocument, _ format: ListFormat, columns: [String]? = nil) -> String {
        String(decoding: ListWriter(format: format, columns: columns).write(document), as: UTF8.self)
    }

    @Test func csvQuotesOnlyWhereNeeded() {
        let document = ListDocument.records([
            row(["id": "1", "note": "plain"]),
            row(["id": "2", "note": "a,b"]),
            row(["id": "3", "note": "say \"hi\""]),
            row(["id": "4", "note": "two\nlines"]),
            row(["id": "5", "note": ""]),
        ])
        #expect(text(document, csv) == "id,note\n1,plain\n2,\"a,b\"\n3,\"say \"\"hi\"\"\"\n4,\"two\nlines\"\n5,\n")
    }

    @Test func csvKeepsTheHeaderOrderAndFillsMissingMembers() {
        let document = ListDocument.records([object(["b": "x", "a": 1]), object(["c": .null, "a": .bool(true)])])
        #expect(text(document, csv, columns: ["a", "b", "c"]) == "a,b,c\n1,x,\ntrue,,\n")
        #expect(text(document, csv) == "b,a,c\nx,1,\n,true,\n")
    }

    @Test func csvQuotesALoneEmptyField() {
        #expect(text(.records([row(["a": ""])]), csv) == "a\n\"\"\n")
    }

    @Test func csvQuotesAFirstHeaderNameThatStartsWithAByteOrderMark() throws {
        // Found by fuzzing: unquoted at the start of the file, U+FEFF reads back as a byte-order mark.
        let list = try read("\u{FEFF}\u{FEFF}id,\u{FEFF}x\n1,2\n", csv)
        #expect(list.schema.columns == ["\u{FEFF}id", "\u{FEFF}x"])
        let written = ListWriter(format: csv).write(list)
        #expect(String(decoding: written, as: UTF8.self) == "\"\u{FEFF}id\",\u{FEFF}x\n1,2\n")
        #expect(try ListReader(options: ReadOptions(format: csv)).read(bytes: written).schema.columns == list.schema.columns)
    }

    @Test func csvWithOtherDelimitersAndLineEndings() {
        let document = ListDocument.records([row(["a": "x;y", "b": "z,w"])])
        #expect(text(document, .csv(delimiter: .semicolon)) == "a;b\n\"x;y\";z,w\n")
        let crlf = ListWriter(format: .csv(delimiter: .tab), lineEnding: .crlf).write(document)
        #expect(String(decoding: crlf, as: UTF8.self) == "a\tb\r\nx;y\tz,w\r\n")
    }

    @Test func jsonArrayAndObjectOfArrays() {
        let records = [object(["id": 1, "tags": .array(["a\"b", .null])]), "scalar"]
        #expect(text(.records(records), .json) == "[\n{\"id\":1,\"tags\":[\"a\\\"b\",null]},\n\"scalar\"\n]\n")
        #expect(text(.records([]), .json) == "[]\n")
        let sections = ListDocument.sections([
            .init(value: "eu", records: [object(["id": 1])]), .init(value: .number("5"), records: []),
        ])
        #expect(text(sections, .json) == "{\n\"eu\": [\n{\"id\":1}\n],\n\"5\": []\n}\n")
        #expect(text(.sections([]), .json) == "{}\n")
    }

    @Test func ndjsonOneRecordPerLine() {
        let sections = ListDocument.sections([.init(value: "a", records: [1, "x"]), .init(value: "b", records: [.null])])
        #expect(text(sections, .ndjson) == "1\n\"x\"\nnull\n")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(text(.records(["\u{1}\t\u{7F}é"]), .ndjson) == "\"\\u0001\\t\u{7F}é\"\n")
    }

    @Test func parsedListsAreWrittenWithTheirSchema() throws {
        let list = try read("b,a\n1,2\n", csv)
        #expect(String(decoding: ListWriter(format: .json).write(list), as: UTF8.self) == "[\n{\"b\":\"1\",\"a\":\"2\"}\n]\n")
        #expect(String(decoding: ListWriter(format: csv).write(list), as: UTF8.self) == "b,a\n1,2\n")
    }
}

/// `read(write(x)) == x`, for generated lists in every format.
@Suite struct RoundTripTests {
    @Test func csvRoundTrip() async {
        await propertyCheck(count: 300, input: Generators.table, Gen<CSVDelimiter>.case) { table, delimiter in
            #expect(throws: Never.self) {
                let document = ListDocument.records(table.rows.map { fields in
                    .object(zip(table.columns, fields).map { ListValue.Member(name: $0, value: .string($1)) })
                })
                let format = ListFormat.csv(delimiter: delimiter)
                let bytes = ListWriter(format: format, columns: table.columns).write(document)
                let list = try ListReader(options: ReadOptions(format: format)).read(bytes: bytes)
                #expect(list.schema.columns == table.columns)
                #expect(list.document == document)
                // Writing what was read gives the same bytes again.
                #expect(ListWriter(format: format).write(list) == bytes)
            }
        }
    }

    @Test func jsonRoundTrip() async {
        await propertyCheck(count: 300, input: Generators.record.array(of: 0...8), Gen.bool) { records, isSectioned in
            #expect(throws: Never.self) {
                let document: ListDocument =
                    isSectioned
                    ? .sections([.init(value: "first", records: records), .init(value: "second", records: records.reversed())])
                    : .records(records)
                for format in [ListFormat.json, .ndjson] {
                    let list = try ListReader(options: ReadOptions(format: format)).read(bytes: ListWriter(format: format).write(document))
                    #expect(list.document == (format == .ndjson ? .records(document.allRecords) : document))
                }
            }
        }
    }

    @Test func rereadingKeepsIdentityAndContent() async {
        await propertyCheck(count: 100, input: Generators.record.array(of: 1...6)) { records in
            #expect(throws: Never.self) {
                let keyed = records.enumerated().map { index, record in
                    object(["id": .number(String(index)), "value": record])
                }
                let first = try ListReader(options: ReadOptions(format: .json, key: ["id"]))
                    .read(bytes: ListWriter(format: .json).write(.records(keyed)))
                let second = try ListReader(options: ReadOptions(format: .ndjson, key: ["id"]))
                    .read(bytes: ListWriter(format: .ndjson).write(first))
                #expect(first.records.map(\.differenceIdentifier) == second.records.map(\.differenceIdentifier))
                #expect(first.records.map(\.contentHash) == second.records.map(\.contentHash))
            }
        }
    }

    @Test func jsonRecordHashesAreTheirValuesHashes() async {
        await propertyCheck(count: 200, input: Generators.record.array(of: 1...5)) { records in
            #expect(throws: Never.self) {
                let list = try ListReader(options: ReadOptions(format: .json)).read(bytes: ListWriter(format: .json).write(.records(records)))
                #expect(list.records.map(\.contentHash) == records.map(\.contentHash))
            }
        }
    }
}
