import ListFormats
import PropertyBased
import ListSyncTestSupport
import Testing

/// The CSV scanner works 64 bytes at a time and hands rows with unusual
/// quoting to an exact, byte-by-byte scanner: rows that cross blocks,
/// quotes on block edges, loose quotes and errors far into a file must read
/// exactly as the grammar says.
@Suite struct CSVScannerTests {
    private func values(_ text: String) throws -> [[String]] {
        let list = try read(text, csv)
        return [list.schema.columns] + list.values.map { value in
            guard case .object(let members) = value else { return [] }
            return members.map { $0.value.text }
        }
    }

    /// Rows with long fields, so that fields, quotes and line ends fall on
    /// every position of a 64-byte block.
    static let wideCase = Generator<PythonReferenceTests.CSVCase, Shrink.None<PythonReferenceTests.CSVCase>> { rng in
        let columnCount = Int.random(in: 1...6, using: &rng)
        let header = (0..<columnCount).map { "c\($0)" }
        let rows = (0..<Int.random(in: 1...30, using: &rng)).map { _ in
            (0..<columnCount).map { _ in Generators.text(&rng, maxLength: Int.random(in: 0...90, using: &rng)) }
        }
        func encode(_ field: String) -> String {
            let mustQuote = field.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            // A quote inside an unquoted field is an ordinary character.
            let canLeaveBareQuotes = !field.contains { $0 == "," || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
                && field.first != "\""
            if !mustQuote, Bool.random(using: &rng) { return field }
            if mustQuote, canLeaveBareQuotes, Bool.random(using: &rng) { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        let lines = [header] + rows.map { $0.count == 1 && $0[0].isEmpty ? ["\"\""] : $0.map(encode) }
        let text = lines.map { $0.joined(separator: ",") }.joined(separator: Bool.random(using: &rng) ? "\n" : "\r\n")
        return PythonReferenceTests.CSVCase(text: text + (Bool.random(using: &rng) ? "\n" : ""), delimiter: .comma)
    }

    @Test func wideRowsAgreeWithPythonsCSVModule() async {
        await propertyCheck(count: 10, input: Self.wideCase.array(of: 30...30)) { cases in
            await #expect(throws: Never.self) {
                let input = cases.map { ["text": $0.text, "delimiter": ","] }
                let expected = try #require(try await Python.run(PythonReferenceTests.csvScript, input: input) as? [[[String]]])
                for (testCase, pythonRows) in zip(cases, expected) {
                    #expect(try values(testCase.text) == pythonRows, "\(testCase)")
                }
            }
        }
    }

    @Test func quotesOnEveryBlockEdge() throws {
        for padding in 50..<80 {
            let filler = String(repeating: "x", count: padding)
            let text = "a,b\n\(filler),\"q\"\"z\"\n\(filler)\"y,\"p,\r\nq\"\r\n\"\",\(filler)"
            #expect(try values(text) == [["a", "b"], [filler, "q\"z"], [filler + "\"y", "p,\r\nq"], ["", filler]])
        }
    }

    @Test func rowsAfterALooseQuoteReadOn() throws {
        // Rows the block scanner leaves to the exact one, among many others.
        var text = "id,note\n"
        var expected = [["id", "note"]]
        for index in 0..<300 {
            let note = index % 37 == 0 ? "5\" tall, or \"not\"" : "plain \(index)"
            text += index % 37 == 0 ? "\(index),5\" tall\n" : "\(index),\"\(note)\"\n"
            expected.append([String(index), index % 37 == 0 ? "5\" tall" : note])
        }
        #expect(try values(text) == expected)
    }

    @Test func errorsFarIntoAFileAreExact() {
        let rows = (0..<500).map { "\($0),\"row \($0)\",x" }
        let unterminated = (rows + ["500,\"open", "501,a,b"]).joined(separator: "\n")
        #expect(readError("id,a,b\n" + unterminated, csv) == .unterminatedQuote(
            at: SourcePosition(line: 502, column: 5, byteOffset: ("id,a,b\n" + rows.joined(separator: "\n") + "\n500,").utf8.count)))
        let afterQuote = (rows + ["500,\"closed\"x,b"]).joined(separator: "\n")
        guard case .characterAfterClosingQuote(let at) = readError("id,a,b\n" + afterQuote, csv) else {
            Issue.record("expected a character after a closing quote"); return
        }
        #expect(at.line == 502 && at.column == 13)
    }
}
