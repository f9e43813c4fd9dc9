/// Builds the ``ListValue`` of a JSON text that the scanner has already
/// validated.
///
/// Being handed valid JSON, it has no errors to report; it still checks
/// every index, so that bytes it was not meant to see give an incomplete
/// value, never a crash.
enum JSONValueDecoder {
    /// The value of `bytes`.
    static func value(of bytes: UnsafeBufferPointer<UInt8>) -> ListValue {
        var parser = Parser(bytes: bytes)
        return parser.value()
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        private var current: UInt8? {
            index < bytes.count ? bytes[index] : nil
        }

        private mutating func skipWhitespace() {
            while let byte = current,
                byte == ASCII.space || byte == ASCII.lineFeed || byte == ASCII.carriageReturn || byte == ASCII.tab
            {
                index += 1
            }
        }

        mutating func value() -> ListValue {
            skipWhitespace()
            guard let byte = current else { return .null }
            switch byte {
            case ASCII.quote:
                return .string(string())
            case ASCII.openBracket:
                index += 1
                var elements: [ListValue] = []
                while nextItem(closing: ASCII.closeBracket, isFirst: elements.isEmpty) {
                    elements.append(value())
                }
                return .array(elements)
            case ASCII.openBrace:
                index += 1
                var members: [ListValue.Member] = []
                while nextItem(closing: ASCII.closeBrace, isFirst: members.isEmpty) {
                    skipWhitespace()
                    let name = string()
                    skipWhitespace()
                    if current == ASCII.colon { index += 1 }
                    members.append(ListValue.Member(name: name, value: value()))
                }
                return .object(members)
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                let literal = byte
                while let next = current, next >= UInt8(ascii: "a"), next <= UInt8(ascii: "z") { index += 1 }
                return literal == UInt8(ascii: "n") ? .null : .bool(literal == UInt8(ascii: "t"))
            default:
                let start = index
                while let next = current, ASCII.isDigit(next) || next == ASCII.minus || next == ASCII.plus
                    || next == ASCII.period || next | 0x20 == UInt8(ascii: "e")
                {
                    index += 1
                }
                return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            }
        }

        /// Moves to the next item of an array or object and returns `true`,
        /// or moves past the closing bracket and returns `false`.
        private mutating func nextItem(closing: UInt8, isFirst: Bool) -> Bool {
            skipWhitespace()
            let continues = isFirst ? (current != closing && current != nil) : current == ASCII.comma
            index += 1
            if continues, isFirst { index -= 1 }
            return continues
        }

        /// The string at `index`, unescaped.
        private mutating func string() -> String {
            guard current == ASCII.quote else { return "" }
            index += 1
            let start = index
            while let byte = current, byte != ASCII.quote {
                index += byte == ASCII.backslash ? 2 : 1
            }
            let end = min(index, bytes.count)
            index += 1
            let body = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            guard body.contains(ASCII.backslash) else { return String(decoding: body, as: UTF8.self) }
            var decoded = ByteScratch(capacity: body.count)
            JSONString.appendDecoded(body, to: &decoded)
            return String(decoding: decoded.bytes(), as: UTF8.self)
        }
    }
}
