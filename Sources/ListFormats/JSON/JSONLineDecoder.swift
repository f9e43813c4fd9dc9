#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decodes one line holding one JSON object into its ``ListValue`` in a single pass, validating
/// as it builds: what a protocol client does for every message it receives.
///
/// It accepts only what an NDJSON ``ListReader`` with the same ``ReadOptions`` accepts as a
/// one-record line (and nearly all of that) — strict JSON (RFC 8259), well-formed UTF-8, unique member names, nesting
/// within ``ReadOptions/maxNestingDepth`` — and gives the same value that
/// ``ParsedList/value(of:)`` gives for that record, without the record's canonical text, hash and
/// schema that a reader computes for a watched file's records, and without scanning the line
/// twice. It does not word errors: for any line it does not accept (bad JSON, but also a blank
/// line, a top-level value that is not an object, a byte-order mark, a carriage return) it returns
/// `nil`, and the caller reads that line with the ``ListReader`` for its positioned error or its
/// rarer forms, so that errors are the reader's, one piece of code, word for word. (What it
/// refuses by a stricter rule than the reader's, such as member names equal as Swift strings but
/// not byte for byte, goes to the reader too, which decides.)
public struct JSONLineDecoder: Sendable {
    private let maxDepth: Int
    private let sizeLimit: Int

    /// A decoder that accepts what an NDJSON reader with `options` accepts on one line.
    public init(options: ReadOptions) {
        maxDepth = options.maxNestingDepth
        sizeLimit = options.effectiveSizeLimit
    }

    /// The value of the object on `line` (without its line end), or `nil` when the line is not
    /// one this decoder accepts (see the type's description). O(*n*) in the line's length.
    public func value(ofLine line: UnsafeBufferPointer<UInt8>) -> ListValue? {
        guard let base = line.baseAddress, line.count > 0, line.count <= sizeLimit,
            memchr(base, Int32(ASCII.lineFeed), line.count) == nil,
            memchr(base, Int32(ASCII.carriageReturn), line.count) == nil,
            UTF8Validation.firstInvalidOffset(in: line) == nil
        else { return nil }
        var parser = Parser(lexer: JSONLexer(base: base, count: line.count), maxDepth: maxDepth)
        return try? parser.line()
    }

    private struct Parser: ~Copyable {
        let lexer: JSONLexer
        let maxDepth: Int
        var index = 0
        var decoded = ByteScratch(capacity: 256)

        init(lexer: JSONLexer, maxDepth: Int) {
            self.lexer = lexer
            self.maxDepth = maxDepth
        }

        /// The line's object, with only spaces and tabs around it. The errors thrown here are
        /// never shown (see ``JSONLineDecoder``): the reader words its own.
        mutating func line() throws(ListFormatError) -> ListValue {
            lexer.skipWhitespace(&index)
            guard lexer.byte(at: index) == ASCII.openBrace else { throw lexer.unexpected(at: index, expected: "'{'") }
            let value = try self.value(depth: 0)
            lexer.skipWhitespace(&index)
            guard index == lexer.count else { throw .trailingContent(at: lexer.position(of: index)) }
            return value
        }

        /// The value at `index` (no whitespace before it), leaving `index` after it; `depth` is
        /// the nesting of the array or object holding it (0 at the top), as the reader counts.
        private mutating func value(depth: Int) throws(ListFormatError) -> ListValue {
            let start = index
            guard let byte = lexer.byte(at: index) else { throw lexer.unexpected(at: index, expected: "a value") }
            switch byte {
            case ASCII.quote:
                return .string(try string())
            case ASCII.openBrace:
                return try object(depth: depth + 1)
            case ASCII.openBracket:
                return try array(depth: depth + 1)
            case ASCII.minus, ASCII.zero...ASCII.nine:
                try lexer.scanNumber(at: &index)
                return .number(String(decoding: lexer.bytes(start, index), as: UTF8.self))
            case UInt8(ascii: "t"):
                try lexer.scanLiteral("true", at: &index)
                return .bool(true)
            case UInt8(ascii: "f"):
                try lexer.scanLiteral("false", at: &index)
                return .bool(false)
            case UInt8(ascii: "n"):
                try lexer.scanLiteral("null", at: &index)
                return .null
            default:
                throw lexer.unexpected(at: index, expected: "a value")
            }
        }

        private mutating func object(depth: Int) throws(ListFormatError) -> ListValue {
            guard depth <= maxDepth else { throw .nestingTooDeep(limit: maxDepth, at: lexer.position(of: index)) }
            index += 1
            var members: [ListValue.Member] = []
            guard lexer.moveToFirstItem(&index, closing: ASCII.closeBrace) else { return .object(members) }
            repeat {
                guard lexer.byte(at: index) == ASCII.quote else {
                    throw lexer.unexpected(at: index, expected: "a member name")
                }
                let name = try string()
                lexer.skipWhitespace(&index)
                guard lexer.byte(at: index) == ASCII.colon else { throw lexer.unexpected(at: index, expected: "':'") }
                index += 1
                lexer.skipWhitespace(&index)
                members.append(ListValue.Member(name: name, value: try value(depth: depth)))
            } while try lexer.moveToNextItem(&index, closing: ASCII.closeBrace)
            guard Self.namesAreUnique(members) else {
                // Any error: the reader words it (and decides what counts as a duplicate).
                throw lexer.unexpected(at: index, expected: "unique member names")
            }
            return .object(members)
        }

        private mutating func array(depth: Int) throws(ListFormatError) -> ListValue {
            guard depth <= maxDepth else { throw .nestingTooDeep(limit: maxDepth, at: lexer.position(of: index)) }
            index += 1
            var elements: [ListValue] = []
            guard lexer.moveToFirstItem(&index, closing: ASCII.closeBracket) else { return .array(elements) }
            repeat {
                elements.append(try value(depth: depth))
            } while try lexer.moveToNextItem(&index, closing: ASCII.closeBracket)
            return .array(elements)
        }

        /// The string whose opening quote is at `index`, unescaped; leaves `index` after it.
        private mutating func string() throws(ListFormatError) -> String {
            let start = index
            let isEscaped = try lexer.scanString(at: &index)
            let body = lexer.bytes(start + 1, index - 1)
            guard isEscaped else { return String(decoding: body, as: UTF8.self) }
            decoded.truncate(to: 0)
            JSONString.appendDecoded(body, to: &decoded)
            return String(decoding: decoded.bytes(), as: UTF8.self)
        }

        /// Whether no two members share a name (compared as Swift strings, which is at least as
        /// strict as the reader: a line this refuses goes to the reader, which decides).
        private static func namesAreUnique(_ members: [ListValue.Member]) -> Bool {
            if members.count <= 16 {
                for second in members.indices.dropFirst() {
                    for first in 0..<second where members[first].name == members[second].name { return false }
                }
                return true
            }
            var seen = Set<String>(minimumCapacity: members.count)
            for member in members where !seen.insert(member.name).inserted { return false }
            return true
        }
    }
}
