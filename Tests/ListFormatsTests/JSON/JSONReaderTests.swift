import ListFormats
import Testing

/// The edge-case catalogue for JSON and NDJSON: every odd input with its
/// records, or the error and where it is.
@Suite struct JSONReaderTests {
    private func values(_ text: String, _ format: ListFormat = .json) throws -> [ListValue] {
        try read(text, format).values
    }

    private func error(_ text: String, _ format: ListFormat = .json) -> ListFormatError? {
        readError(text, format)
    }

    @Test func arrayOfObjectsAndScalars() throws {
        let text = #"[{"id": 1, "tags": ["a", {"b": null}]}, "text", 2.50, true, false, null]"#
        #expect(try values(text) == [
            object(["id": 1, "tags": .array(["a", object(["b": .null])])]),
            "text", .number("2.50"), .bool(true), .bool(false), .null,
        ])
    }

    @Test func numbersKeepTheirLiteralText() throws {
        let text = "[12345678901234567890123, -0, 1.000000000000000000001, 1e400, -2.5E-3, 0]"
        #expect(try values(text) == ["12345678901234567890123", "-0", "1.000000000000000000001", "1e400", "-2.5E-3", "0"].map {
            ListValue.number($0)
        })
    }

    @Test func stringEscapesAreDecoded() throws {
        let text = #"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u4e2d\ud83d\ude00", "Zoë"]"#
        #expect(try values(text) == ["\"\\/\u{8}\u{C}\n\r\t", "Aé中\u{1F600}", "Zoë"])
    }

    @Test func emptyListsAndWhitespace() throws {
        #expect(try values(" \n[ \t]\r\n ").isEmpty)
        #expect(try values("[{}]") == [.object([])])
        #expect(try read("\u{FEFF}[1]", .json).report.hadByteOrderMark)
    }

    @Test func objectOfArraysIsSectioned() throws {
        let list = try read(#"{"eu": [{"id": 1}, {"id": 2}], "us": [], "asia": [{"id": 3}]}"#, .json, key: ["id"])
        #expect(list.isSectioned)
        #expect(list.sections.map(\.model.name) == ["eu", "us", "asia"])
        #expect(list.sections.map(\.elements.count) == [2, 0, 1])
        #expect(list.report.sectionCount == 3)
        #expect(try read("{}", .json).sections.isEmpty)
    }

    @Test func sectionsNamedByEscapedNamesAreTheSame() {
        guard case .duplicateMemberName("a", let at, let first) = error(#"{"a": [], "\u0061": []}"#) else {
            Issue.record("expected duplicateMemberName"); return
        }
        #expect(at.column == 11)
        #expect(first.column == 2)
    }

    @Test func aSectionThatIsNotAnArray() {
        guard case .sectionNotArray("a", let at) = error(#"{"a": 1}"#) else { Issue.record("expected sectionNotArray"); return }
        #expect(at == SourcePosition(line: 1, column: 7, byteOffset: 6))
    }

    @Test func sectionByOnASectionedFile() {
        guard case .sectionByOnSectionedFile = readError(#"{"a": []}"#, .json, sectionBy: "x") else {
            Issue.record("expected sectionByOnSectionedFile"); return
        }
    }

    @Test(arguments: [
        ("42", "a number"), (#""x""#, "a string"), ("true", "a literal"), ("null", "a literal"), ("-1", "a number"),
    ])
    func otherTopLevelValues(_ text: String, _ found: String) {
        guard case .unexpectedTopLevelValue(let kind, let at) = error(text) else {
            Issue.record("expected unexpectedTopLevelValue for \(text)"); return
        }
        #expect(kind == found)
        #expect(at.byteOffset == 0)
    }

    @Test func trailingCommas() {
        guard case .trailingComma(let at) = error("[1,2,]") else { Issue.record("expected trailingComma"); return }
        #expect(at == SourcePosition(line: 1, column: 5, byteOffset: 4))
        guard case .trailingComma(let inObject) = error("[{\"a\":1,\n}]") else { Issue.record("expected trailingComma"); return }
        #expect(inObject == SourcePosition(line: 1, column: 8, byteOffset: 7))
        guard case .trailingComma = error(#"{"a": [],}"#) else { Issue.record("expected trailingComma"); return }
        guard case .trailingComma = error(#"[{"a":[1,]}]"#) else { Issue.record("expected trailingComma"); return }
    }

    @Test func comments() {
        guard case .comment(let at) = error("[1,\n // two\n 2]") else { Issue.record("expected comment"); return }
        #expect(at == SourcePosition(line: 2, column: 2, byteOffset: 5))
        guard case .comment = error("/* list */ []") else { Issue.record("expected comment"); return }
        guard case .comment = error("[] // done") else { Issue.record("expected comment"); return }
        guard case .comment = error(#"[{"a": /* x */ 1}]"#) else { Issue.record("expected comment"); return }
    }

    @Test(arguments: [("[NaN]", 2), ("[Infinity]", 2), ("[1, -Infinity]", 5), (#"[{"a": NaN}]"#, 8)])
    func nonFiniteNumbers(_ text: String, _ column: Int) {
        guard case .nonFiniteNumber(let at) = error(text) else { Issue.record("expected nonFiniteNumber for \(text)"); return }
        #expect(at.column == column)
    }

    @Test(arguments: ["[01]", "[1.]", "[-]", "[1e]", "[1e+]", "[-01.5]", "[2.e3]", "[-a]"])
    func invalidNumbers(_ text: String) {
        guard case .invalidNumber(let at) = error(text) else {
            Issue.record("expected invalidNumber for \(text), got \(String(describing: error(text)))"); return
        }
        #expect(at.column == 2)
    }

    @Test(arguments: ["[+1]", "[.5]", "[1 2]", "['a']", "[tru]", "[nul]", "[0x10]"])
    func unexpectedCharacters(_ text: String) {
        guard case .unexpectedCharacter = error(text) else {
            Issue.record("expected unexpectedCharacter for \(text), got \(String(describing: error(text)))"); return
        }
    }

    @Test func duplicateMemberNamesInsideARecord() {
        guard case .duplicateMemberName("a", let at, let first) = error("[{\"a\": 1,\n \"b\": 2, \"a\": 3}]") else {
            Issue.record("expected duplicateMemberName"); return
        }
        #expect(at == SourcePosition(line: 2, column: 10, byteOffset: 19))
        #expect(first == SourcePosition(line: 1, column: 3, byteOffset: 2))
        guard case .duplicateMemberName("b", _, _) = error(#"[{"x": {"b": 1, "\u0062": 2}}]"#) else {
            Issue.record("expected a nested duplicate"); return
        }
        guard case .duplicateMemberName("k", _, _) = error(#"[{"a":1},{"k":1,"j":2,"k":3}]"#) else {
            Issue.record("expected a duplicate in the second record"); return
        }
    }

    @Test func duplicatesInLargeObjectsAreFound() {
        let members = (0..<100).map { "\"m\($0)\": \($0)" }.joined(separator: ", ")
        guard case .duplicateMemberName("m7", _, _) = error("[{\(members), \"m7\": 0}]") else {
            Issue.record("expected duplicateMemberName"); return
        }
        #expect(error("[{\(members)}]") == nil)
    }

    @Test func invalidEscapes() {
        guard case .invalidEscape(let at) = error(#"["ab\x"]"#) else { Issue.record("expected invalidEscape"); return }
        #expect(at.column == 5)
        for text in [#"["\ud800"]"#, #"["\udc00"]"#, #"["\ud800\u0041"]"#, #"["\u12G4"]"#, #"["\u12"]"#] {
            guard case .invalidEscape = error(text) else { Issue.record("expected invalidEscape for \(text)"); continue }
        }
    }

    @Test func controlCharactersInStrings() {
        guard case .unescapedControlCharacter(let at) = error("[\"a\tb\"]") else {
            Issue.record("expected unescapedControlCharacter"); return
        }
        #expect(at.column == 4)
        guard case .unescapedControlCharacter = error("[\"a\nb\"]") else { Issue.record("expected unescapedControlCharacter"); return }
    }

    @Test func invalidUTF8InAString() {
        let bytes = Array("[\"ab".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8)  // an encoded surrogate
        guard case .invalidUTF8(let at) = readError(bytes, .json) else { Issue.record("expected invalidUTF8"); return }
        #expect(at.byteOffset == 4)
    }

    @Test func arraysAreNotRecords() {
        guard case .arrayRecord(let at) = error("[1, [2]]") else { Issue.record("expected arrayRecord"); return }
        #expect(at.column == 5)
    }

    @Test func unexpectedEnd() {
        for text in ["", "[", "[{\"a\":1", "[\"abc", "[{\"a\"", "[1,", "{\"a\":"] {
            guard case .unexpectedEndOfInput = error(text) else {
                Issue.record("expected unexpectedEndOfInput for \(text), got \(String(describing: error(text)))"); continue
            }
        }
    }

    @Test func trailingContent() {
        guard case .trailingContent(let at) = error("[1] x") else { Issue.record("expected trailingContent"); return }
        #expect(at.column == 5)
        guard case .trailingContent = error("[][]") else { Issue.record("expected trailingContent"); return }
    }

    @Test func nestingDepthIsLimited() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        guard case .nestingTooDeep(limit: 512, _) = error("[{\"a\": \(deep)}]") else {
            Issue.record("expected nestingTooDeep"); return
        }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(try values("[{\"a\": \(fine)}]").count == 1)
    }

    // MARK: NDJSON

    @Test func ndjsonRecordsPerLine() throws {
        let list = try read("{\"id\":1}\r\n\n  \n{\"id\":2}  \n\"three\"\n4", .ndjson)
        #expect(list.values == [object(["id": 1]), object(["id": 2]), "three", 4])
        #expect(list.report.blankLineCount == 2)
        #expect(try values("", .ndjson).isEmpty)
    }

    @Test func ndjsonRejectsTwoRecordsOnALine() {
        guard case .trailingContent(let at) = error("{\"a\":1} {\"a\":2}\n", .ndjson) else {
            Issue.record("expected trailingContent"); return
        }
        #expect(at.column == 9)
    }

    @Test func ndjsonRejectsARecordOverSeveralLines() {
        guard case .recordSpansLines(let at) = error("{\"a\":\n1}\n", .ndjson) else { Issue.record("expected recordSpansLines"); return }
        #expect(at == SourcePosition(line: 1, column: 6, byteOffset: 5))
    }

    @Test func ndjsonErrorsArePositionedInTheFile() {
        guard case .trailingComma(let at) = error("{\"a\":1}\n{\"a\":[1,]}\n", .ndjson) else {
            Issue.record("expected trailingComma"); return
        }
        #expect(at == SourcePosition(line: 2, column: 8, byteOffset: 15))
    }
}
