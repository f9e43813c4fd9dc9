import ListFormats
import ListSyncTestSupport
import Testing

@testable import ListSyncProtocol

/// `MessageParser.value(ofLine:)` decodes a line in one pass (`JSONLineDecoder`) and leaves the
/// lines it does not accept to the NDJSON reader; these check that the result — value, or error
/// with its message and position — is the reader's own (`readerValue(ofLine:)`, the path every
/// line took before) on random lines, valid and broken, and that the one-pass decoder is what
/// decodes the well-formed ones.
@Suite struct MessageLineDecodingPropertyTests {
    /// What the parser gives for `line`: its value or its error.
    static func parsed(_ line: [UInt8]) -> Result<ListValue?, ProtocolError> {
        Result { () throws(ProtocolError) in try MessageParser.value(ofLine: line) }
    }

    /// What the NDJSON reader alone gives for `line`.
    static func read(_ line: [UInt8]) -> Result<ListValue?, ProtocolError> {
        Result { () throws(ProtocolError) in try MessageParser.readerValue(ofLine: line) }
    }

    static let decoder = JSONLineDecoder(
        options: ReadOptions(format: .ndjson, maxNestingDepth: MessageParser.maxNestingDepth))

    @Test func wellFormedLinesAreDecodedInOnePassToTheReadersValue() {
        var rng = SplitMix(seed: 0x51D_0001)
        var accepted = 0
        for _ in 0..<3000 {
            var generator = LineGenerator(rng: rng)
            let line = generator.object()
            rng = generator.rng
            let expected = Self.read(line)
            let direct = line.withUnsafeBufferPointer(Self.decoder.value(ofLine:))
            if let direct {
                accepted += 1
                #expect(expected == .success(direct), "\(String(decoding: line, as: UTF8.self))")
            }
            #expect(Self.parsed(line) == expected, "\(String(decoding: line, as: UTF8.self))")
        }
        // Only lines with a repeated member name (1 member in 40 may repeat a name) go to the
        // reader.
        #expect(accepted >= 2500, "decoded in one pass: \(accepted) of 3000")
    }

    @Test func brokenLinesGetTheReadersErrorsAtTheSamePositions() {
        var rng = SplitMix(seed: 0x51D_0002)
        var refused = 0
        for round in 0..<6000 {
            var generator = LineGenerator(rng: rng)
            let line = generator.broken(generator.object())
            rng = generator.rng
            let expected = Self.read(line)
            if case .failure = expected { refused += 1 }
            let direct = line.withUnsafeBufferPointer(Self.decoder.value(ofLine:))
            if let direct {
                #expect(expected == .success(direct), "round \(round): \(String(decoding: line, as: UTF8.self))")
            }
            #expect(Self.parsed(line) == expected, "round \(round): \(String(decoding: line, as: UTF8.self))")
        }
        #expect(refused >= 3000, "lines the reader refused: \(refused) of 6000")
    }

    @Test func namedCasesMatchTheReader() {
        let lines: [String] = [
            "", "   ", "{}", " {\"a\":1} ", "\t{\"a\":1}\t", "{\"a\":1}\r", "\u{FEFF}{\"a\":1}", "[1,2]", "1", "\"s\"", "null",
            "{\"a\":NaN}", "{\"a\":-Infinity}", "{\"a\":Infinity}", "{\"a\":1e99999}", "{\"a\":123456789012345678901234567890}",
            "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":1e}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}",
            "{\"a\":\"\\ud83d\\ude00\"}", "{\"a\":\"\\u00e9\"}", "{\"a\":1,\"a\":2}", "{\"a\":1,\"\\u0061\":2}", "{\"a\":1,}",
            "{\"a\":1}{}", "{\"a\":1} x", "{\"a\" 1}", "{a:1}", "{\"a\":tru}", "{\"a\":[1,,2]}", "{\"a\":\"\u{1}\"}", "{\"a\":1 // c}",
            "{\"a\":\"e\u{301}\",\"a\u{301}\":1}", "{\"\u{E9}\":1,\"e\u{301}\":2}",
            String(repeating: "{\"a\":", count: 80) + "1" + String(repeating: "}", count: 80),
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
        ]
        for text in lines {
            let line = Array(text.utf8)
            #expect(Self.parsed(line) == Self.read(line), "\(text.debugDescription)")
        }
        for levels in MessageParser.maxNestingDepth - 1...MessageParser.maxNestingDepth + 1 {
            let line = LineGenerator.nested(levels: levels)
            #expect(Self.parsed(line) == Self.read(line), "\(levels) levels")
        }
        for bytes: [UInt8] in [[0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x22, 0x7D], [0xC0, 0x80]] {
            #expect(Self.parsed(bytes) == Self.read(bytes), "\(bytes)")
        }
    }
}

/// Random JSON object lines, and ways to break them.
private struct LineGenerator {
    var rng: SplitMix

    private mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &rng) }

    private static let stringPieces: [String] = [
        "a", "b", "id", "name", "é", "e\u{301}", "日本", "😀", " ", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\u0041", "\\u00e9",
        "\\ud83d\\ude00", "\\u0000", "\\b", "\\f", "\\r", ",", ":", "{", "]",
    ]

    private static let numbers: [String] = [
        "0", "-0", "1", "-17", "3.25", "1e10", "2E-5", "-0.0e+3", "12345678901234567890123456789", "1e999", "-1e-999",
        "0.000000000000000000000001",
    ]

    private mutating func string() -> String {
        var text = "\""
        for _ in 0..<below(5) { text += Self.stringPieces[below(Self.stringPieces.count)] }
        return text + "\""
    }

    private mutating func space() -> String {
        switch below(8) {
        case 0: " "
        case 1: "\t"
        case 2: "  \t "
        default: ""
        }
    }

    mutating func value(depth: Int) -> String {
        switch below(depth > 3 ? 5 : 7) {
        case 0: return Self.numbers[below(Self.numbers.count)]
        case 1: return string()
        case 2: return ["true", "false", "null"][below(3)]
        case 3, 4: return depth > 3 ? string() : ["true", "false", "null"][below(3)]
        case 5:
            let count = below(4)
            return "[" + space() + (0..<count).map { _ in value(depth: depth + 1) }.joined(separator: space() + "," + space())
                + space() + "]"
        default: return objectText(depth: depth + 1)
        }
    }

    private mutating func objectText(depth: Int) -> String {
        let count = below(depth == 0 ? 8 : 4)
        var names: Set<String> = []
        var members: [String] = []
        for _ in 0..<count {
            var name = string()
            if below(40) != 0 {
                while names.contains(name) { name = "\"k\(below(1_000_000))\"" }
            }
            names.insert(name)
            members.append(name + space() + ":" + space() + value(depth: depth))
        }
        return "{" + space() + members.joined(separator: space() + "," + space()) + space() + "}"
    }

    /// A well-formed line: one object, perhaps with spaces and tabs around.
    mutating func object() -> [UInt8] {
        Array((space() + objectText(depth: 0) + space()).utf8)
    }

    /// An object nested `levels` deep (objects and arrays in turn): around the reader's limit.
    static func nested(levels: Int) -> [UInt8] {
        let opening = (0..<levels).map { $0 % 2 == 0 ? "{\"d\":" : "[" }
        let closing = (0..<levels).reversed().map { $0 % 2 == 0 ? "}" : "]" }
        return Array((opening.joined() + "1" + closing.joined()).utf8)
    }

    /// `line`, broken in one of the ways a line can be (or, now and then, left as it is).
    mutating func broken(_ line: [UInt8]) -> [UInt8] {
        var line = line
        let at = line.isEmpty ? 0 : below(line.count)
        switch below(12) {
        case 0: line.removeSubrange(at...)
        case 1: line.insert([0x22, 0x5C, 0x7B, 0x2C, 0x3A, 0x5D, 0x7D, 0x20, 0x78, 0x30][below(10)], at: at)
        case 2: line.insert(contentsOf: [[0xFF], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF]][below(5)], at: at)
        case 3: line.insert(contentsOf: Array(["\\x", "\\u12", "\\ud800", "\\udc00x", "\\", "\u{1}", "\t"][below(7)].utf8), at: at)
        case 4: line.insert(contentsOf: Array(["NaN", "Infinity", "-Infinity", "01", "1.", "-", "1e", "+1"][below(8)].utf8), at: at)
        case 5: if !line.isEmpty { line.remove(at: at) }
        case 6: line.insert(contentsOf: Array(["\r", "\n", "\u{FEFF}", "//", "/*"][below(5)].utf8), at: at)
        case 7:
            // A repeated member name, written the same or escaped differently.
            let name = ["\"a\":1", "\"\\u0061\":2", "\"a\":[]"][below(3)]
            if let brace = line.firstIndex(of: UInt8(ascii: "{")) {
                line.insert(contentsOf: Array(("\"a\":0," + name + ",").utf8), at: brace + 1)
            }
        case 8: line += Array([" {}", "x", ",", "}", " 1"][below(5)].utf8)
        case 9: line = Self.nested(levels: MessageParser.maxNestingDepth - 2 + below(5))
        case 10: line = Array(["[1]", "2", "\"s\"", "true", "", " \t "][below(6)].utf8)
        default: break
        }
        return line
    }
}
