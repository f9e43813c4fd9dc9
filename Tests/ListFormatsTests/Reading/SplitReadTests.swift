import CListFormatsScan
import ListFormats
import Testing

/// Files of 16 MB and more are read in two halves at once. Whatever the
/// split, the list must be the one a single pass reads: the same records
/// (content, identity, place), the same report and schema, the same first
/// error. A `section_by` on a field every record has alike keeps a read in
/// one pass, which gives the reference.
@Suite struct SplitReadTests {
    /// CSV rows enough for a split, with quoted notes that hold commas,
    /// quotes and line breaks, blank lines, and repeated keys.
    private static func csvText(rows: Int = 330_000) -> String {
        csvHeader + csvRows(rows)
    }

    private static let csvHeader = "id,group,name,note\n"

    private static func csvRows(_ rows: Int) -> String {
        var text = ""
        text.reserveCapacity(rows * 120)
        for row in 0..<rows {
            let note = row % 7 == 0 ? "\"line one\nline \"\"two\"\", with comma\"" : "plain note number \(row)"
            text += "\(row % 100_000),g,name \(row) Müller é,\(note)\n"
            if row % 1000 == 0 { text += "\n" }
        }
        return text
    }

    private func expectSameList(_ split: ParsedList, _ single: ParsedList) {
        #expect(split.records.count == single.records.count)
        #expect(split.records.map(\.contentHash) == single.records.map(\.contentHash))
        #expect(split.records.map(\.byteOffset) == single.records.map(\.byteOffset))
        #expect(split.records.map(\.differenceIdentifier) == single.records.map(\.differenceIdentifier))
        var report = single.report
        report.sectionCount = 0
        #expect(split.report == report)
        #expect(split.schema == single.schema)
    }

    @Test func csvHalvesReadAsOnePass() throws {
        let text = Self.csvText()
        #expect(text.utf8.count > 16 << 20)
        let split = try read(text, csv, key: ["id"])
        #expect(!split.isSectioned)
        expectSameList(split, try read(text, csv, key: ["id"], sectionBy: "group"))
        #expect(split.report.duplicateCount == 230_000)
        // Composite keys: built, then hashed, in each half.
        let composite = try read(text, csv, key: ["id", "name"])
        expectSameList(composite, try read(text, csv, key: ["id", "name"], sectionBy: "group"))
    }

    @Test func theGuessFindsARowStartInsideAQuotedField() throws {
        // The middle falls inside a quoted field that holds line breaks: the
        // guess must skip them, telling from the quotes after the middle.
        let rows = Self.csvRows(165_000)
        let quoted = "1,g,name,\"" + String(repeating: "line\n", count: 20) + "end\"\n"
        let text = Self.csvHeader + rows + quoted + rows
        let bytes = Array(text.utf8)
        let header = Self.csvHeader.utf8.count
        let split = bytes.withUnsafeBufferPointer { buffer in
            listsync_csv_split_point(buffer.baseAddress!, Int64(buffer.count), Int64(header), UInt8(ascii: ","))
        }
        #expect(split == Int64(header + rows.utf8.count + quoted.utf8.count))
        expectSameList(try read(text, csv, key: ["id"]), try read(text, csv, key: ["id"], sectionBy: "group"))
    }

    @Test func aWrongGuessReadsOnAlone() throws {
        // A quote inside an unquoted field right past the middle looks like
        // an opening quote and misleads the guess of where a row starts.
        let rows = Self.csvRows(165_000)
        let text = Self.csvHeader + rows + "1,g,name," + String(repeating: "x", count: 60) + "5\"tall\n" + rows
        let bytes = Array(text.utf8)
        let split = bytes.withUnsafeBufferPointer { buffer in
            listsync_csv_split_point(buffer.baseAddress!, Int64(buffer.count), Int64(Self.csvHeader.utf8.count), UInt8(ascii: ","))
        }
        let single = try read(text, csv, key: ["id"], sectionBy: "group")
        #expect(split > 0 && !single.records.contains { $0.byteOffset == Int(split) }, "the guess is right after all")
        expectSameList(try read(text, csv, key: ["id"]), single)
    }

    @Test func jsonAndNDJSONHalvesReadAsOnePass() throws {
        // Records around the middle hold `},{` in a string, which misleads
        // the guess of where a record starts there.
        let tricky = "\"" + String(repeating: "x", count: 200) + "}, {\""
        var lines: [String] = []
        for row in 0..<280_000 {
            let note = abs(row - 140_000) < 100 ? tricky : row % 5 == 0 ? #""said \"hi\"\n""# : #""ok""#
            let extra = row % 9 == 0 ? #", "tags": [1, 2]"# : ""
            lines.append(#"{"id": \#(row % 90_000), "group": "g", "name": "Zoë \#(row)", "note": \#(note)\#(extra)}"#)
        }
        let array = "[\n" + lines.joined(separator: ",\n") + "\n]\n"
        #expect(array.utf8.count > 16 << 20)
        expectSameList(
            try read(array, .json, key: ["id"], ignore: ["tags"]),
            try read(array, .json, key: ["id"], sectionBy: "group", ignore: ["tags"]))
        let ndjson = lines.enumerated().map { $0.offset % 500 == 0 ? $0.element + "\n" : $0.element }.joined(separator: "\n")
        let splitLines = try read(ndjson, .ndjson, key: ["id"])
        expectSameList(splitLines, try read(ndjson, .ndjson, key: ["id"], sectionBy: "group"))
        #expect(splitLines.report.blankLineCount == 560)
        #expect(splitLines.schema.columns == ["id", "group", "name", "note", "tags"])
    }

    @Test func theFirstErrorIsReportedWhicheverHalfHasIt() {
        var text = Self.csvText()
        let late = text.index(text.endIndex, offsetBy: -200)
        text.insert(contentsOf: "1,\"unterminated", at: text[late...].firstIndex(of: "\n").map { text.index(after: $0) } ?? late)
        guard case .unterminatedQuote(let at) = readError(text, csv) else { Issue.record("expected an unterminated quote"); return }
        #expect(at.line > 150_000)

        // A ragged row right after the header comes first.
        var both = text
        both.insert(contentsOf: "1,2,3,4,5\n", at: both.index(after: both.firstIndex(of: "\n") ?? both.startIndex))
        guard case .raggedRow(expected: 4, found: 5, let early) = readError(both, csv) else {
            Issue.record("expected the early ragged row"); return
        }
        #expect(early.line == 2)
    }

    @Test func invalidUTF8AnywhereIsTheError() {
        var bytes = Array(Self.csvText().utf8)
        bytes[bytes.count - 100] = 0xFF
        #expect(readError(bytes, csv) == .invalidUTF8(at: bytes.withUnsafeBufferPointer {
            SourceLocator.position(ofByteOffset: bytes.count - 100, in: $0)
        }))
    }
}
