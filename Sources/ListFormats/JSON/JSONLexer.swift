#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tokens of JSON (RFC 8259, strict) over a file's bytes: strings,
/// numbers, literals, whitespace and the separators between items, each
/// checked and skipped without building anything; and the errors, with their
/// positions, for bytes that are not JSON.
///
/// A small value (a pointer and a count) that the scanner and the reader
/// share, so that calling it costs nothing.
struct JSONLexer {
    private let base: UnsafePointer<UInt8>
    let count: Int
    private static let quotePattern = ByteWord.splat(ASCII.quote)
    private static let backslashPattern = ByteWord.splat(ASCII.backslash)

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// The offset of the first line feed in `start..<end`, if any.
    func firstLineFeed(from start: Int, to end: Int) -> Int? {
        guard end > start, let found = memchr(base + start, Int32(ASCII.lineFeed), end - start) else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    // MARK: Tokens

    /// Scans the string whose opening quote is at `index`, leaving `index`
    /// after the closing quote; returns whether it contains escapes.
    @inline(__always)
    func scanString(at index: inout Int) throws(ListFormatError) -> Bool {
        var position = index + 1
        var isEscaped = false
        while true {
            position = nextStringSpecial(from: position)
            guard position < count else { throw unexpected(at: position, expected: "'\"' to end the string") }
            let byte = base[position]
            if byte == ASCII.quote {
                index = position + 1
                return isEscaped
            }
            guard byte == ASCII.backslash else { throw .unescapedControlCharacter(at: self.position(of: position)) }
            isEscaped = true
            position = try scanEscape(at: position)
        }
    }

    /// The index of the first quote, backslash or control character at or
    /// after `start`, or `count`.
    @inline(__always)
    private func nextStringSpecial(from start: Int) -> Int {
        var index = start
        while index + 8 <= count {
            let word = ByteWord(loadingFrom: base, at: index)
            let terms = word.equalityTerm(Self.quotePattern) & word.equalityTerm(Self.backslashPattern) & word.controlTerm
            let mask = ByteWord.mask(fromAnded: terms)
            if mask != 0 { return index + ByteWord.firstByte(in: mask) }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte == ASCII.quote || byte == ASCII.backslash || byte < 0x20 { return index }
            index += 1
        }
        return count
    }

    /// Checks the escape whose backslash is at `index`; returns the index after it.
    private func scanEscape(at index: Int) throws(ListFormatError) -> Int {
        guard index + 1 < count else { throw unexpected(at: index + 1, expected: "an escape") }
        switch base[index + 1] {
        case ASCII.quote, ASCII.backslash, ASCII.slash, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
            UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index + 2
        case UInt8(ascii: "u"):
            let unit = try hexQuad(at: index + 2, escapeAt: index)
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 7 < count, base[index + 6] == ASCII.backslash, base[index + 7] == UInt8(ascii: "u"),
                    (0xDC00...0xDFFF).contains(try hexQuad(at: index + 8, escapeAt: index + 6))
                else { throw .invalidEscape(at: position(of: index)) }
                return index + 12
            case 0xDC00...0xDFFF:
                throw .invalidEscape(at: position(of: index))
            default:
                return index + 6
            }
        default:
            throw .invalidEscape(at: position(of: index))
        }
    }

    private func hexQuad(at index: Int, escapeAt escape: Int) throws(ListFormatError) -> UInt32 {
        guard index + 4 <= count else { throw .invalidEscape(at: position(of: escape)) }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = JSONString.hexDigit(base[index + offset]) else {
                throw .invalidEscape(at: position(of: escape))
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Scans a number (RFC 8259 grammar), leaving `index` after it.
    func scanNumber(at index: inout Int) throws(ListFormatError) {
        let start = index
        var position = index
        if base[position] == ASCII.minus {
            position += 1
            if matches("Infinity", at: position) { throw .nonFiniteNumber(at: self.position(of: start)) }
        }
        guard position < count, ASCII.isDigit(base[position]) else { throw .invalidNumber(at: self.position(of: start)) }
        if base[position] == ASCII.zero {
            position += 1
            if position < count, ASCII.isDigit(base[position]) { throw .invalidNumber(at: self.position(of: start)) }
        } else {
            skipDigits(&position)
        }
        if position < count, base[position] == ASCII.period {
            position += 1
            guard position < count, ASCII.isDigit(base[position]) else {
                throw .invalidNumber(at: self.position(of: start))
            }
            skipDigits(&position)
        }
        if position < count, base[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < count, base[position] == ASCII.plus || base[position] == ASCII.minus { position += 1 }
            guard position < count, ASCII.isDigit(base[position]) else {
                throw .invalidNumber(at: self.position(of: start))
            }
            skipDigits(&position)
        }
        index = position
    }

    @inline(__always)
    private func skipDigits(_ index: inout Int) {
        while index < count, ASCII.isDigit(base[index]) { index += 1 }
    }

    func scanLiteral(_ literal: StaticString, at index: inout Int) throws(ListFormatError) {
        guard matches(literal, at: index) else { throw unexpected(at: index, expected: "a value") }
        index += literal.utf8CodeUnitCount
    }

    /// Whether the bytes at `index` spell `literal`.
    func matches(_ literal: StaticString, at index: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        return index + length <= count && memcmp(base + index, literal.utf8Start, length) == 0
    }

    /// Moves past the whitespace after the opening bracket of an array or
    /// object: returns `true` when an item follows, or moves past `closing`
    /// and returns `false` for an empty one.
    @inline(__always)
    func moveToFirstItem(_ index: inout Int, closing: UInt8) -> Bool {
        skipWhitespace(&index)
        guard index < count, base[index] == closing else { return true }
        index += 1
        return false
    }

    /// Moves past what follows an item of an array or object: a comma and
    /// whitespace (returns `true`: another item follows; a comma before
    /// `closing` is an error), or `closing` (returns `false`).
    @inline(__always)
    func moveToNextItem(_ index: inout Int, closing: UInt8) throws(ListFormatError) -> Bool {
        skipWhitespace(&index)
        if index < count, base[index] == ASCII.comma {
            let comma = index
            index += 1
            skipWhitespace(&index)
            if index < count, base[index] == closing { throw .trailingComma(at: position(of: comma)) }
            return true
        }
        guard index < count, base[index] == closing else {
            throw unexpected(at: index, expected: "',' or '\(Character(UnicodeScalar(closing)))'")
        }
        index += 1
        return false
    }

    /// Skips JSON whitespace (space, tab, LF, CR).
    @inline(__always)
    func skipWhitespace(_ index: inout Int) {
        while index < count {
            let byte = base[index]
            guard byte == ASCII.space || byte == ASCII.lineFeed || byte == ASCII.carriageReturn || byte == ASCII.tab
            else { return }
            index += 1
        }
    }

    // MARK: Bytes and errors

    /// The byte at `index`, or `nil` at the end.
    @inline(__always)
    func byte(at index: Int) -> UInt8? {
        index < count ? base[index] : nil
    }

    @inline(__always)
    func bytes(_ start: Int, _ end: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + start, count: end - start)
    }

    func buffer(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + start, count: end - start)
    }

    /// The error for an unexpected byte (or the end) at `index`: a comment, the
    /// end of the file, or a character that does not belong there.
    func unexpected(at index: Int, expected: String) -> ListFormatError {
        guard index < count else { return .unexpectedEndOfInput(expected: expected, at: position(of: index)) }
        if base[index] == ASCII.slash, index + 1 < count, base[index + 1] == ASCII.slash || base[index + 1] == UInt8(ascii: "*") {
            return .comment(at: position(of: index))
        }
        return .unexpectedCharacter(expected: expected, at: position(of: index))
    }

    /// The line and column of `offset`.
    func position(of offset: Int) -> SourcePosition {
        SourceLocator.position(ofByteOffset: offset, in: UnsafeBufferPointer(start: base, count: count))
    }
}
