/// Writes a ``ListValue`` as compact JSON: no whitespace, numbers as their
/// literal text, strings with ``JSONString``'s escapes, members in order — or
/// sorted by name, which makes the canonical text that content hashes are
/// taken of.
enum JSONValueEncoder {
    /// Appends `value` to `output`; `sortsMembers` writes the canonical text.
    static func append<Output: JSONOutput & ~Copyable>(_ value: ListValue, sortsMembers: Bool = false, to output: inout Output) {
        switch value {
        case .null:
            appendASCII("null", to: &output)
        case .bool(let flag):
            appendASCII(flag ? "true" : "false", to: &output)
        case .number(let literal):
            appendUTF8(literal, to: &output)
        case .string(let string):
            appendString(string, to: &output)
        case .array(let elements):
            output.append(ASCII.openBracket)
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(ASCII.comma) }
                append(element, sortsMembers: sortsMembers, to: &output)
            }
            output.append(ASCII.closeBracket)
        case .object(let members):
            output.append(ASCII.openBrace)
            let ordered = sortsMembers ? members.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) } : members
            for (index, member) in ordered.enumerated() {
                if index > 0 { output.append(ASCII.comma) }
                appendString(member.name, to: &output)
                output.append(ASCII.colon)
                append(member.value, sortsMembers: sortsMembers, to: &output)
            }
            output.append(ASCII.closeBrace)
        }
    }

    /// Appends `string` as a JSON string literal.
    static func appendString<Output: JSONOutput & ~Copyable>(_ string: String, to output: inout Output) {
        var string = string
        string.withUTF8 { JSONString.appendQuoted(UnsafeRawBufferPointer($0), to: &output) }
    }

    /// Appends the UTF-8 bytes of `text` unchanged.
    static func appendUTF8<Output: JSONOutput & ~Copyable>(_ text: String, to output: inout Output) {
        var text = text
        text.withUTF8 { output.append(UnsafeRawBufferPointer($0)) }
    }

    private static func appendASCII<Output: JSONOutput & ~Copyable>(_ text: StaticString, to output: inout Output) {
        output.append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
