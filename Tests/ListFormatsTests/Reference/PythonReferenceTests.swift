import Foundation
import ListFormats
import PropertyBased
import ListSyncTestSupport
import Testing

/// The readers against Python's `csv` and `json` modules on generated inputs
/// full of quotes, separators, CRLF, non-ASCII text and empty fields. Cases
/// go to Python in batches, one process per batch.
@Suite struct PythonReferenceTests {
    // MARK: CSV

    /// A CSV text written independently of ``ListWriter``: random (but valid)
    /// quoting, line endings, blank lines and final newline.
    struct CSVCase: Sendable, CustomStringConvertible {
        var text: String
        var delimiter: CSVDelimiter
        var description: String { "CSVCase(\(String(reflecting: text)), \(delimiter))" }
    }

    static let csvCase = Generator<CSVCase, Shrink.None<CSVCase>> { rng in
        let delimiter = CSVDelimiter.allCases.randomElement(using: &rng) ?? .comma
        let d = Character(UnicodeScalar(delimiter.rawValue))
        let table = Generators.table.run(using: &rng)
        func encode(_ field: String) -> String {
            let mustQuote = field.contains { $0 == d || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            let canLeaveBareQuotes = !field.contains { $0 == d || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
                && field.first != "\""
            if !mustQuote, Bool.random(using: &rng) { return field }
            if mustQuote, canLeaveBareQuotes, Int.random(in: 0..<3, using: &rng) == 0 { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        func lineEnding() -> String { Bool.random(using: &rng) ? "\n" : "\r\n" }
        var text = Int.random(in: 0..<4, using: &rng) == 0 ? lineEnding() : ""
        let lines = [table.columns] + table.rows
        for (index, fields) in lines.enumerated() {
            // A lone empty unquoted field is a blank line for both readers, so quote it.
            let encoded = fields.count == 1 && fields[0].isEmpty ? ["\"\""] : fields.map(encode)
            text += encoded.joined(separator: String(d))
            if index + 1 < lines.count || Bool.random(using: &rng) { text += lineEnding() }
            if index + 1 < lines.count, Int.random(in: 0..<5, using: &rng) == 0 { text += lineEnding() }
        }
        return CSVCase(text: text, delimiter: delimiter)
    }

    static let csvScript = """
        import csv, io, json, sys
        out = []
        for case in json.load(open(sys.argv[1], encoding="utf-8")):
            rows = csv.reader(io.StringIO(case["text"], newline=""), delimiter=case["delimiter"])
            out.append([row for row in rows if row != []])
        json.dump(out, sys.stdout)
        """

    @Test func csvAgreesWithPythonsCSVModule() async {
        await propertyCheck(count: 20, input: Self.csvCase.array(of: 30...30)) { cases in
            await #expect(throws: Never.self) {
                let input = cases.map { ["text": $0.text, "delimiter": String(UnicodeScalar($0.delimiter.rawValue))] }
                let expected = try #require(try await Python.run(Self.csvScript, input: input) as? [[[String]]])
                for (testCase, pythonRows) in zip(cases, expected) {
                    let list = try ListReader(options: ReadOptions(format: .csv(delimiter: testCase.delimiter)))
                        .read(bytes: Array(testCase.text.utf8))
                    let ours = [list.schema.columns] + list.values.map { value in
                        guard case .object(let members) = value else { return [] }
                        return members.map { $0.value.text }
                    }
                    #expect(ours == pythonRows, "\(testCase)")
                }
            }
        }
    }

    // MARK: JSON

    /// Writes JSON text independently of ``ListWriter``: random whitespace,
    /// and strings with random escapes (`\uXXXX`, surrogate pairs, `\/`).
    static func jsonText(_ value: ListValue, _ rng: inout any SeededRandomNumberGenerator) -> String {
        func space() -> String { ["", "", " ", "\n", "\t", "\r\n  "].randomElement(using: &rng) ?? "" }
        func string(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "/" where Bool.random(using: &rng): result += "\\/"
                case "\n": result += Bool.random(using: &rng) ? "\\n" : "\\u000A"
                case _ where scalar.value < 0x20 || Int.random(in: 0..<6, using: &rng) == 0:
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16, uppercase: Bool.random(using: &rng))
                        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let literal): return literal
        case .string(let text): return string(text)
        case .array(let elements):
            return "[" + space() + elements.map { jsonText($0, &rng) }.joined(separator: space() + "," + space()) + space() + "]"
        case .object(let members):
            let body = members.map { string($0.name) + space() + ":" + space() + jsonText($0.value, &rng) }
            return "{" + space() + body.joined(separator: "," + space()) + space() + "}"
        }
    }

    static let jsonDocument = Generator<String, Shrink.None<String>> { rng in
        let records = (0..<Int.random(in: 0...6, using: &rng)).map { _ in Generators.record.run(using: &rng) }
        return jsonText(.array(records), &rng)
    }

    /// Python's parse as a tagged tree — numbers keep their text — or an
    /// error marker when ListSync must reject the text: not JSON, NaN or
    /// Infinity, duplicate names, lone surrogates, or not an array of objects
    /// and scalars.
    static let jsonScript = """
        import json, sys
        class Reject(Exception): pass
        def pairs(items):
            names = [name for name, _ in items]
            if len(set(names)) != len(names): raise Reject()
            return ["o", [[name, value] for name, value in items]]
        def constant(name): raise Reject()
        def checked(string):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in string): raise Reject()
            return string
        def tag(value):
            if isinstance(value, list) and value[:1] in (["o"], ["n"]) and len(value) == 2 and not isinstance(value[1], (int, float)):
                if value[0] == "o": return ["o", [[checked(name), tag(v)] for name, v in value[1]]]
                return value
            if isinstance(value, list): return ["a", [tag(v) for v in value]]
            if isinstance(value, str): return ["s", checked(value)]
            if value is True: return ["t"]
            if value is False: return ["f"]
            if value is None: return ["z"]
            raise Reject()
        out = []
        for text in json.load(open(sys.argv[1], encoding="utf-8")):
            try:
                value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant,
                                   parse_int=lambda s: ["n", s], parse_float=lambda s: ["n", s])
                if not isinstance(value, list) or value[:1] in (["o"], ["n"]): raise Reject()
                records = [tag(v) for v in value]
                if any(r[0] == "a" for r in records): raise Reject()
                out.append(["ok", records])
            except (ValueError, Reject, RecursionError):
                out.append(["error"])
        json.dump(out, sys.stdout)
        """

    /// Whether `value` is the tagged tree Python printed.
    static func matches(_ value: ListValue, _ tagged: Any) -> Bool {
        guard let tagged = tagged as? [Any], let tag = tagged.first as? String else { return false }
        switch (value, tag) {
        case (.null, "z"): return true
        case (.bool(true), "t"), (.bool(false), "f"): return true
        case (.number(let literal), "n"): return tagged.count == 2 && tagged[1] as? String == literal
        case (.string(let text), "s"): return tagged.count == 2 && tagged[1] as? String == text
        case (.array(let elements), "a"):
            guard tagged.count == 2, let others = tagged[1] as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { matches($0, $1) }
        case (.object(let members), "o"):
            guard tagged.count == 2, let others = tagged[1] as? [[Any]], others.count == members.count else { return false }
            return zip(members, others).allSatisfy { member, other in
                other.count == 2 && other[0] as? String == member.name && matches(member.value, other[1])
            }
        default: return false
        }
    }

    private func compareWithPython(_ texts: [String]) async throws {
        let expected = try #require(try await Python.run(Self.jsonScript, input: texts) as? [[Any]])
        for (text, python) in zip(texts, expected) {
            let ours = Result { () throws(ListFormatError) in try ListReader(options: ReadOptions(format: .json)).read(bytes: Array(text.utf8)) }
            switch (ours, python.first as? String) {
            case (.success(let list), "ok"):
                let records = python.count == 2 ? python[1] as? [Any] ?? [] : []
                let values = list.values
                #expect(values.count == records.count && zip(values, records).allSatisfy { Self.matches($0, $1) }, "\(text)")
            case (.failure, "error"):
                break
            case (.success, _):
                Issue.record("ListSync read what Python rejects: \(String(reflecting: text))")
            case (.failure(let error), _):
                Issue.record("ListSync rejected what Python reads (\(error)): \(String(reflecting: text))")
            }
        }
    }

    @Test func jsonAgreesWithPythonsJSONModule() async {
        await propertyCheck(count: 15, input: Self.jsonDocument.array(of: 30...30)) { texts in
            await #expect(throws: Never.self) {
                try await compareWithPython(texts)
            }
        }
    }

    /// Damaged documents: one character deleted or inserted. Both parsers
    /// must agree on whether the result is still a list, and on its records.
    @Test func damagedJSONAgreesWithPython() async {
        let damaged = Generator<String, Shrink.None<String>> { rng in
            var characters = Array(Self.jsonDocument.run(using: &rng))
            let position = Int.random(in: 0...characters.count, using: &rng)
            if Bool.random(using: &rng), position < characters.count {
                characters.remove(at: position)
            } else {
                let inserted: [Character] = [",", "]", "}", "[", "{", "\"", "\\", ":", " ", "/", "0", "-", ".", "e", "\u{1}"]
                characters.insert(inserted.randomElement(using: &rng) ?? ",", at: position)
            }
            return String(characters)
        }
        await propertyCheck(count: 20, input: damaged.array(of: 40...40)) { texts in
            await #expect(throws: Never.self) {
                try await compareWithPython(texts)
            }
        }
    }
}
