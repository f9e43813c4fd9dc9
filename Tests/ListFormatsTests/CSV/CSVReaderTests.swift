import ListFormats
import Testing

/// The edge-case catalogue for CSV: every odd input with its records, or the
/// error and where it is.
@Suite struct CSVReaderTests {
    private func values(_ text: String, _ format: ListFormat = csv, raggedRows: RaggedRowPolicy = .error) throws -> [ListValue] {
        try read(text, format, raggedRows: raggedRows).values
    }

    @Test func quotedFieldsWithDelimitersDoubledQuotesAndLineBreaks() throws {
        let text = "id,note\n1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,\"crlf\r\ninside\"\n"
        #expect(try values(text) == [
            row(["id": "1", "note": "a,b"]),
            row(["id": "2", "note": "say \"hi\""]),
            row(["id": "3", "note": "two\nlines"]),
            row(["id": "4", "note": "crlf\r\ninside"]),
        ])
    }

    @Test func lineEndingsLFCRLFAndLoneCR() throws {
        let expected = [row(["a": "1", "b": "2"]), row(["a": "3", "b": "4"])]
        #expect(try values("a,b\n1,2\n3,4\n") == expected)
        #expect(try values("a,b\r\n1,2\r\n3,4\r\n") == expected)
        #expect(try values("a,b\r1,2\r3,4\r") == expected)
        #expect(try values("a,b\r\n1,2\n3,4") == expected)
    }

    @Test func finalNewlineIsOptional() throws {
        #expect(try values("a\n1") == [row(["a": "1"])])
        #expect(try values("a\n1\n") == [row(["a": "1"])])
        #expect(try values("a,b\n1,") == [row(["a": "1", "b": ""])])
        #expect(try values("a,b\n1,\"\"") == [row(["a": "1", "b": ""])])
    }

    @Test func blankLinesAreSkippedAndCounted() throws {
        let list = try read("\n\na,b\n\n1,2\r\n\r\n\n3,4\n\n", csv)
        #expect(list.values == [row(["a": "1", "b": "2"]), row(["a": "3", "b": "4"])])
        #expect(list.report.blankLineCount == 6)
    }

    @Test func aQuotedEmptyFieldIsNotABlankLine() throws {
        #expect(try values("a\n\"\"\n\nx\n") == [row(["a": ""]), row(["a": "x"])])
    }

    @Test func byteOrderMarkIsStripped() throws {
        let list = try read("\u{FEFF}id,name\n1,x\n", csv)
        #expect(list.schema.columns == ["id", "name"])
        #expect(list.report.hadByteOrderMark)
        // Columns after a byte-order mark count from its end.
        #expect(lineAndColumn(readError("\u{FEFF}a,a\n", csv)) == [1, 3])
    }

    @Test(arguments: [CSVDelimiter.comma, .semicolon, .tab, .pipe])
    func delimiters(_ delimiter: CSVDelimiter) throws {
        let d = String(UnicodeScalar(delimiter.rawValue))
        let text = "a\(d)b\n\"x\(d)y\"\(d)z\n"
        #expect(try values(text, .csv(delimiter: delimiter)) == [row(["a": "x\(d)y", "b": "z"])])
    }

    @Test func delimiterDefaultsByExtension() {
        #expect(ListFormat(path: "/data/people.csv") == .csv(delimiter: .comma))
        #expect(ListFormat(path: "people.TSV") == .csv(delimiter: .tab))
        #expect(ListFormat(path: "people.tab") == .csv(delimiter: .tab))
        #expect(ListFormat(path: "a.json") == .json)
        #expect(ListFormat(path: "a.ndjson") == .ndjson)
        #expect(ListFormat(path: "a.jsonl") == .ndjson)
        #expect(ListFormat(path: "a.txt") == nil)
        #expect(ListFormat(path: "dir.csv/file") == nil)
    }

    @Test func quotesInsideAnUnquotedFieldAreText() throws {
        #expect(try values("a,b\n5'11\",x\"y\n") == [row(["a": "5'11\"", "b": "x\"y"])])
    }

    @Test func whitespaceIsKept() throws {
        #expect(try values("a,b\n x ,y \n") == [row(["a": " x ", "b": "y "])])
    }

    @Test func unicodeFields() throws {
        #expect(try values("名前,city\n\"Zoë, \u{1F600}\",São Paulo\n") == [row(["名前": "Zoë, \u{1F600}", "city": "São Paulo"])])
    }

    // MARK: Errors

    @Test func emptyFileHasNoHeader() {
        guard case .missingHeader = readError("", csv) else { Issue.record("expected missingHeader"); return }
        guard case .missingHeader(let at) = readError("\n\r\n", csv) else { Issue.record("expected missingHeader"); return }
        #expect(at.line == 3)
    }

    @Test func headerOnlyIsAnEmptyList() throws {
        let list = try read("a,b\n", csv)
        #expect(list.records.isEmpty)
        #expect(list.schema.columns == ["a", "b"])
    }

    @Test func blankLinesAfterTheLastRowAreSkipped() throws {
        // Found by fuzzing: blank lines right before the end ran the scanner out of memory.
        let cases: [(text: String, records: Int, blankLines: Int)] = [
            ("a\n\n", 0, 1), ("a\n\n\n", 0, 2), ("a\r\n\r\n", 0, 1), ("a\n\r", 0, 1),
            ("id,s\n2,\"\"\"\"\n\n", 1, 1), ("id\n1\n\n\n\n", 1, 3),
        ]
        for (text, records, blankLines) in cases {
            let list = try read(text, csv)
            #expect(list.records.count == records, "\(text.debugDescription)")
            #expect(list.report.blankLineCount == blankLines, "\(text.debugDescription)")
        }
    }

    @Test func unterminatedQuoteIsReportedAtTheOpeningQuote() {
        let error = readError("id,name\n1,\"abc\n2,x\n", csv)
        guard case .unterminatedQuote(let at) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(at == SourcePosition(line: 2, column: 3, byteOffset: 10))
        #expect(error?.description == "2:3: quoted field is never closed")
    }

    @Test func characterAfterClosingQuote() {
        let error = readError("id,name\n1,\"ab\"c\n", csv)
        guard case .characterAfterClosingQuote(let at) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(at == SourcePosition(line: 2, column: 7, byteOffset: 14))
    }

    @Test func raggedRowsAreErrorsByDefault() {
        guard case .raggedRow(expected: 2, found: 3, let at) = readError("a,b\n1,2,3\n", csv) else {
            Issue.record("expected raggedRow"); return
        }
        #expect(at == SourcePosition(line: 2, column: 5, byteOffset: 8))
        guard case .raggedRow(expected: 2, found: 1, let short) = readError("a,b\n1,2\n1\n", csv) else {
            Issue.record("expected raggedRow"); return
        }
        #expect(short == SourcePosition(line: 3, column: 2, byteOffset: 9))
    }

    @Test func padFillsShortRowsButRejectsLongOnes() throws {
        let list = try read("a,b,c\n1\n1,2,3\n", csv, raggedRows: .pad)
        #expect(list.values == [row(["a": "1", "b": "", "c": ""]), row(["a": "1", "b": "2", "c": "3"])])
        #expect(list.report.paddedRowCount == 1)
        guard case .raggedRow(expected: 3, found: 4, _) = readError("a,b,c\n1,2,3,4\n", csv, raggedRows: .pad) else {
            Issue.record("expected raggedRow"); return
        }
    }

    @Test func truncateDropsExtraFieldsButRejectsShortRows() throws {
        let list = try read("a,b\n1,2,3,\"4\"\n", csv, raggedRows: .truncate)
        #expect(list.values == [row(["a": "1", "b": "2"])])
        #expect(list.report.truncatedRowCount == 1)
        guard case .raggedRow(expected: 2, found: 1, _) = readError("a,b\n1\n", csv, raggedRows: .truncate) else {
            Issue.record("expected raggedRow"); return
        }
    }

    @Test func paddedAndUnpaddedRowsWithTheSameValuesHaveTheSameContent() throws {
        let padded = try read("a,b\n1\n", csv, raggedRows: .pad).records[0]
        let full = try read("a,b\n1,\n", csv).records[0]
        #expect(padded.contentHash == full.contentHash)
    }

    @Test func emptyHeaderName() {
        guard case .emptyHeaderName(column: 2, let at) = readError("a,,c\n1,2,3\n", csv) else {
            Issue.record("expected emptyHeaderName"); return
        }
        #expect(at == SourcePosition(line: 1, column: 3, byteOffset: 2))
        guard case .emptyHeaderName(column: 1, _) = readError("\"\",b\n", csv) else {
            Issue.record("expected emptyHeaderName"); return
        }
    }

    @Test func duplicateHeaderName() {
        guard case .duplicateHeaderName("a", column: 3, firstColumn: 1, let at) = readError("a,b,\"a\"\n", csv) else {
            Issue.record("expected duplicateHeaderName"); return
        }
        #expect(at == SourcePosition(line: 1, column: 5, byteOffset: 4))
    }

    @Test func invalidUTF8() {
        let error = readError([0x61, 0x0A, 0x62, 0xC3, 0x28, 0x0A], csv)
        guard case .invalidUTF8(let at) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(at == SourcePosition(line: 2, column: 2, byteOffset: 3))
    }

    @Test func unknownKeyColumn() {
        guard case .unknownColumn("nope", let at) = readError("a,b\n1,2\n", csv, key: ["nope"]) else {
            Issue.record("expected unknownColumn"); return
        }
        #expect(at.line == 1)
    }

    @Test func keyColumnMissingFromAPaddedRow() {
        let error = readError("a,b\n1,2\n3\n", csv, key: ["b"], raggedRows: .pad)
        guard case .missingField("b", let at) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(at == SourcePosition(line: 3, column: 1, byteOffset: 8))
    }
}
