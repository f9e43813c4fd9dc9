/// JSON string escapes, both ways.
///
/// Decoding turns the body of a validated string literal into UTF-8. Encoding
/// writes UTF-8 as a string literal with one fixed spelling per character —
/// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX` for other control
/// characters, everything else as is — which is what writers emit and the
/// canonical form readers hash, so `"\u0041"` and `"A"` are the same string.
enum JSONString {
    /// Appends the UTF-8 value of a string body (the bytes between the quotes,
    /// whose escapes were validated) to `output`.
    static func appendDecoded(_ body: UnsafeRawBufferPointer, to output: inout ByteScratch) {
        var index = 0
        var runStart = 0
        while index < body.count {
            guard body[index] == ASCII.backslash else {
                index += 1
                continue
            }
            output.append(UnsafeRawBufferPointer(rebasing: body[runStart..<index]))
            guard index + 1 < body.count else { return }
            let escape = body[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(ASCII.lineFeed)
            case UInt8(ascii: "r"): output.append(ASCII.carriageReturn)
            case UInt8(ascii: "t"): output.append(ASCII.tab)
            case UInt8(ascii: "u"):
                var scalar = hexValue(body, at: index)
                index += 4
                if (0xD800...0xDBFF).contains(scalar), index + 6 <= body.count {
                    let low = hexValue(body, at: index + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                appendUTF8(scalar, to: &output)
            default: output.append(escape)  // " \ /
            }
            runStart = index
        }
        output.append(UnsafeRawBufferPointer(rebasing: body[runStart..<body.count]))
    }

    /// The value of the four hex digits at `index` (validated), or 0xFFFD if
    /// they are missing.
    static func hexValue(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt32 {
        guard index + 4 <= bytes.count else { return 0xFFFD }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = hexDigit(bytes[index + offset]) else { return 0xFFFD }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The value of a hex digit, or `nil`.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case ASCII.zero...ASCII.nine: byte - ASCII.zero
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func appendUTF8(_ scalar: UInt32, to output: inout ByteScratch) {
        let scalar = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        for unit in scalar.utf8 {
            output.append(unit)
        }
    }

    /// Appends `value` (UTF-8) as a JSON string literal, quotes included.
    static func appendQuoted<Output: JSONOutput & ~Copyable>(_ value: UnsafeRawBufferPointer, to output: inout Output) {
        output.append(ASCII.quote)
        var runStart = 0
        for (index, byte) in value.enumerated() where byte < 0x20 || byte == ASCII.quote || byte == ASCII.backslash {
            output.append(UnsafeRawBufferPointer(rebasing: value[runStart..<index]))
            appendEscape(for: byte, to: &output)
            runStart = index + 1
        }
        output.append(UnsafeRawBufferPointer(rebasing: value[runStart...]))
        output.append(ASCII.quote)
    }

    private static func appendEscape<Output: JSONOutput & ~Copyable>(for byte: UInt8, to output: inout Output) {
        output.append(ASCII.backslash)
        switch byte {
        case ASCII.quote, ASCII.backslash: output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case ASCII.lineFeed: output.append(UInt8(ascii: "n"))
        case ASCII.carriageReturn: output.append(UInt8(ascii: "r"))
        case ASCII.tab: output.append(UInt8(ascii: "t"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            output.append(UInt8(ascii: "u"))
            output.append(ASCII.zero)
            output.append(ASCII.zero)
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0xF)])
        }
    }
}
