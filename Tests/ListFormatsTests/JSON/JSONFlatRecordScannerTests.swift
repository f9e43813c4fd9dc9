import ListFormats
import PropertyBased
import Testing

/// The JSON fast path (flat records, read in C) against the complete scanner
/// and against the canonical text of the values: same content hashes, same
/// identities, same schema, and the complete scanner's exact errors for
/// whatever the fast path leaves to it.
@Suite struct JSONFlatRecordScannerTests {
    /// A flat record: an object of strings, numbers and literals, or a scalar.
    static func flatRecord(_ rng: inout any SeededRandomNumberGenerator) -> ListValue {
        guard Int.random(in: 0..<8, using: &rng) > 0 else { return Generators.value(&rng, depth: 0) }
        var names = Set<String>()
        var members: [ListValue.Member] = []
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            let name = Generators.text(&rng, maxLength: 20)
            if names.insert(name).inserted {
                members.append(ListValue.Member(name: name, value: Generators.value(&rng, depth: 0)))
            }
        }
        return .object(members)
    }

    /// Records that mostly share one shape and one layout, as real lists do:
    /// the fast path's cached names and layout are used, and broken.
    static let flatList = Generator<[ListValue], Shrink.None<[ListValue]>> { rng in
        let template = flatRecord(&rng)
        return (0..<Int.random(in: 1...40, using: &rng)).map { _ in
            guard case .object(let members) = template, Int.random(in: 0..<6, using: &rng) > 0 else {
                return flatRecord(&rng)
            }
            return .object(members.map { ListValue.Member(name: $0.name, value: Generators.value(&rng, depth: 0)) })
        }
    }

    /// The records as a JSON array, the same whitespace between all of them
    /// (so that their layout repeats) or random whitespace.
    static func arrayText(_ records: [ListValue], _ rng: inout any SeededRandomNumberGenerator) -> String {
        if Bool.random(using: &rng) {
            return PythonReferenceTests.jsonText(.array(records), &rng)
        }
        let text = records.map { record in
            guard case .object(let members) = record else { return PythonReferenceTests.jsonText(record, &rng) }
            return "{" + members.map { "\(stringLiteral($0.name)): \(PythonReferenceTests.jsonText($0.value, &rng))" }
                .joined(separator: ", ") + "}"
        }
        return "[\n  " + text.joined(separator: ",\n  ") + "\n]\n"
    }

    private static func stringLiteral(_ text: String) -> String {
        ListValue.string(text).jsonText
    }

    @Test func contentHashesAreThoseOfTheCanonicalText() async {
        let input = Generator<String, Shrink.None<String>> { rng in Self.arrayText(Self.flatList.run(using: &rng), &rng) }
        await propertyCheck(count: 200, input: input) { text in
            #expect(throws: Never.self) {
                let list = try read(text, .json)
                for record in list.records {
                    #expect(record.contentHash == list.value(of: record).contentHash, "\(text)")
                }
            }
        }
    }

    @Test func ndjsonContentHashesAreThoseOfTheCanonicalText() async {
        await propertyCheck(count: 200, input: Self.flatList) { records in
            #expect(throws: Never.self) {
                let text = records.map(\.jsonText).joined(separator: "\n") + "\n"
                let list = try read(text, .ndjson)
                #expect(list.records.map(\.contentHash) == records.map(\.contentHash))
                #expect(list.values == records)
            }
        }
    }

    @Test func theFastPathAgreesWithTheCompleteScanner() async {
        // The same records, once flat (the fast path reads them) and once
        // with a nested member that is ignored (the complete scanner reads
        // them): same content, same identities.
        await propertyCheck(count: 100, input: Self.flatList) { records in
            #expect(throws: Never.self) {
                let objects = records.map { record -> ListValue in
                    // A scalar becomes an object with only an id: the key must be in every record.
                    var members: [ListValue.Member] = []
                    if case .object(let recordMembers) = record { members = recordMembers }
                    return .object(members.filter { $0.name != "nested" && $0.name != "id" } + [
                        ListValue.Member(name: "id", value: .number(String(members.count)))
                    ])
                }
                let flat = "[" + objects.map(\.jsonText).joined(separator: ",") + "]"
                let nested = "[" + objects.map { object in
                    guard case .object(let members) = object else { return object.jsonText }
                    return ListValue.object(members + [ListValue.Member(name: "nested", value: .array([.null]))]).jsonText
                }.joined(separator: ",") + "]"
                let fast = try read(flat, .json, key: ["id"], ignore: ["nested"])
                let complete = try read(nested, .json, key: ["id"], ignore: ["nested"])
                #expect(fast.records.map(\.contentHash) == complete.records.map(\.contentHash))
                #expect(fast.records.map(\.differenceIdentifier) == complete.records.map(\.differenceIdentifier))
                #expect(fast.report.duplicateCount == complete.report.duplicateCount)
            }
        }
    }

    /// `count` records laid out alike, one per line, the given text in place
    /// of record `broken` (counting from 0).
    private func lines(_ count: Int, broken: Int, with text: String) -> String {
        let records = (0..<count).map { index in
            index == broken ? text : #"{"id": \#(index), "name": "n\#(index)", "amount": 1.5, "ok": true}"#
        }
        return "[\n" + records.joined(separator: ",\n") + "\n]"
    }

    @Test func errorsAfterManyRecordsAreExact() {
        let bad = #"{"id": 7, "name": "x", "amount": 12x, "ok": true}"#
        let error = readError(lines(100, broken: 60, with: bad), .json)
        guard case .unexpectedCharacter(_, let at) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(at.line == 62 && at.column == 36)

        let repeated = #"{"id": 7, "name": "x", "id": 8, "ok": true}"#
        guard case .duplicateMemberName("id", let second, let first) = readError(lines(50, broken: 30, with: repeated), .json)
        else { Issue.record("expected a duplicate name"); return }
        #expect([first.line, first.column, second.line, second.column] == [32, 2, 32, 24])

        let invalid = #"{"id": 7, "name": "a\qb", "amount": 1, "ok": true}"#
        guard case .invalidEscape(let escape) = readError(lines(50, broken: 49, with: invalid), .json) else {
            Issue.record("expected an invalid escape"); return
        }
        #expect(escape.line == 51 && escape.column == 21)

        let trailing = lines(30, broken: -1, with: "").dropLast(2) + ",\n]"
        guard case .trailingComma(let comma) = readError(String(trailing), .json) else {
            Issue.record("expected a trailing comma"); return
        }
        #expect(comma.line == 31 && comma.column == 53)
    }

    @Test func ndjsonErrorsAfterManyRecordsAreExact() {
        let good = (0..<40).map { #"{"id":\#($0),"v":"x"}"# }
        let spanning = (good + [#"{"id":40,"#, #""v":"y"}"#]).joined(separator: "\n")
        guard case .recordSpansLines(let at) = readError(spanning, .ndjson) else { Issue.record("expected a split record"); return }
        #expect(at.line == 41 && at.column == 10)
        let trailing = (good + [#"{"id":40,"v":"y"} {"id":41}"#]).joined(separator: "\n")
        guard case .trailingContent(let after) = readError(trailing, .ndjson) else { Issue.record("expected trailing content"); return }
        #expect(after.line == 41 && after.column == 19)
    }

    @Test func blankLinesAndShapesAcrossBatches() throws {
        // More records than one batch holds, shapes changing along the way.
        var text = ""
        for index in 0..<1500 {
            text += index % 500 == 0 ? #"{"id":\#(index),"extra\#(index / 500)":1}"# : #"{"id":\#(index)}"#
            text += index % 7 == 0 ? "\n\n \r\n" : "\n"
        }
        let list = try read(text, .ndjson, key: ["id"])
        #expect(list.report.recordCount == 1500)
        #expect(list.report.blankLineCount == (0..<1500).filter { $0 % 7 == 0 }.count * 2)
        #expect(list.schema.columns == ["id", "extra0", "extra1", "extra2"])
        #expect(list.keyComponents(of: list.records[1234]) == ["1234"])
    }

    /// The fast path leaves UTF-8 to the reader's check over each batch it
    /// read: an ill-formed string many batches in is found at its byte,
    /// whether the records after it or before it are broken (ill-formed
    /// UTF-8 anywhere is the error, see `ListReader.read(bytes:)`), and a
    /// broken record alone is reported in that record.
    @Test func utf8CheckedPerBatchKeepsTheFirstError() {
        func document(badByteIn badRecord: Int, brokenRecord: Int) -> (bytes: [UInt8], badOffset: Int, brokenRange: Range<Int>) {
            var bytes = Array("[\n".utf8)
            var badOffset = 0
            var brokenRange = 0..<0
            for index in 0..<2000 {
                let start = bytes.count
                bytes += Array(#"{"id": \#(index), "name": "Zoë "#.utf8)
                if index == badRecord {
                    badOffset = bytes.count
                    bytes.append(0xFF)
                }
                bytes += Array(#"\#(index)", "ok": \#(index == brokenRecord ? "tru" : "true")}"#.utf8)
                if index == brokenRecord { brokenRange = start..<bytes.count }
                bytes += Array((index == 1999 ? "\n]" : ",\n").utf8)
            }
            return (bytes, badOffset, brokenRange)
        }
        let utf8First = document(badByteIn: 1500, brokenRecord: 1800)
        #expect(readError(utf8First.bytes, .json) == .invalidUTF8(at: utf8First.bytes.withUnsafeBufferPointer {
            SourceLocator.position(ofByteOffset: utf8First.badOffset, in: $0)
        }))
        let brokenBefore = document(badByteIn: 1500, brokenRecord: 1200)
        #expect(readError(brokenBefore.bytes, .json) == .invalidUTF8(at: brokenBefore.bytes.withUnsafeBufferPointer {
            SourceLocator.position(ofByteOffset: brokenBefore.badOffset, in: $0)
        }))
        let brokenOnly = document(badByteIn: -1, brokenRecord: 1200)
        guard let error = readError(brokenOnly.bytes, .json), let offset = error.position?.byteOffset else {
            Issue.record("expected an error")
            return
        }
        #expect(brokenOnly.brokenRange.contains(offset), "\(error)")
    }
}
