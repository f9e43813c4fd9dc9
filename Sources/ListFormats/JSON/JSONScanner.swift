#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A validating scanner for JSON (RFC 8259, strict) that writes each
/// record's canonical text as it goes, for hashing.
///
/// It builds no values. Each value is checked and reduced to a
/// ``ValueDigest``, and the record's canonical JSON text is written to a
/// scratch buffer: no whitespace, object members sorted by name (unescaped
/// UTF-8 bytes), strings re-escaped only when they contain escapes (see
/// ``JSONString``), numbers as written. The XXH3-128 of that text is the
/// record's content hash, so whitespace, member order and escape spelling
/// don't count.
///
/// Along the way it captures the values of key and `section_by` fields,
/// leaves `ignore`d fields out of the text, rejects duplicate member names,
/// and collects the member names of object records (the schema).
struct JSONScanner: ~Copyable {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    /// The tokens.
    let lexer: JSONLexer
    private let maxDepth: Int
    private let fields: JSONFieldLookup
    /// The canonical text of the current record; nested objects are sorted
    /// in place at their end.
    private var scratch = ByteScratch(capacity: 1 << 16)
    /// Decoded names and strings.
    private var decoded = ByteScratch(capacity: 256)
    /// The members of the objects being scanned, innermost last.
    private var members = ScratchArray<MemberSpan>()
    private var memberOrder = JSONMemberOrder()
    /// The values captured for the current record, by slot (or ``ValueDigest/absent``).
    private(set) var captures: ScratchArray<ValueDigest>
    /// The member names of object records (including those of the records
    /// the fast path reads, see ``JSONFlatRecordScanner``).
    var schema = JSONSchemaCollector()
    /// Where the current record's canonical text starts in the scratch buffer.
    private var recordTextStart = 0

    init(base: UnsafePointer<UInt8>, count: Int, fields: JSONFieldTrie, maxDepth: Int) {
        self.base = base
        self.count = count
        self.lexer = JSONLexer(base: base, count: count)
        self.fields = JSONFieldLookup(fields)
        self.maxDepth = maxDepth
        self.captures = ScratchArray(repeating: .absent, count: fields.captureCount)
    }

    // MARK: Records

    /// Scans the record at `index` (an object or a scalar), leaving `index`
    /// after it; returns it with its content hash. Its captured fields are in
    /// ``captures``.
    mutating func scanRecord(at index: inout Int) throws(ListFormatError) -> (value: ValueDigest, content: ContentHash) {
        for slot in 0..<captures.count { captures[slot] = .absent }
        if index < count, base[index] == ASCII.openBracket { throw .arrayRecord(at: lexer.position(of: index)) }
        scratch.truncate(to: 0)
        recordTextStart = 0
        let value = try scanValue(at: &index, depth: 0, node: JSONFieldTrie.root)
        if !value.isContainer { appendCanonical(value) }
        return (value, scratch.hash128(from: recordTextStart))
    }

    /// Scans the string (a member name) at `index`, leaving `index` after it.
    mutating func scanName(at index: inout Int) throws(ListFormatError) -> ValueDigest {
        let start = index
        let isEscaped = try lexer.scanString(at: &index)
        return ValueDigest(kind: isEscaped ? .escapedString : .string, start: start, end: index)
    }

    /// Appends the canonical form of a scalar `value` to `output` — or, for a
    /// captured object or array, byte 0x01 and the 16 bytes of its hash.
    mutating func appendCanonical(_ value: ValueDigest, to output: inout ByteScratch) {
        Self.appendCanonical(value, base: base, decoded: &decoded, to: &output)
    }

    @inline(__always)
    private mutating func appendCanonical(_ value: ValueDigest) {
        Self.appendCanonical(value, base: base, decoded: &decoded, to: &scratch)
    }

    @inline(__always)
    private static func appendCanonical(
        _ value: ValueDigest, base: UnsafePointer<UInt8>, decoded: inout ByteScratch, to output: inout ByteScratch
    ) {
        switch value.kind {
        case .string, .number, .literal:
            output.append(base + value.start, count: value.end - value.start)
        case .escapedString:
            decoded.truncate(to: 0)
            JSONString.appendDecoded(
                UnsafeRawBufferPointer(start: base + value.start + 1, count: value.end - value.start - 2), to: &decoded)
            JSONString.appendQuoted(decoded.bytes(), to: &output)
        case .object, .array:
            KeyCanonicalForm.appendContainer(hash: value.hash, to: &output)
        }
    }

    /// The decoded text of a string value (or the text of any other value).
    mutating func text(of value: ValueDigest) -> String {
        guard value.kind == .string || value.kind == .escapedString else {
            return String(decoding: lexer.bytes(value.start, value.end), as: UTF8.self)
        }
        decoded.truncate(to: 0)
        JSONString.appendDecoded(lexer.bytes(value.start + 1, value.end - 1), to: &decoded)
        return String(decoding: decoded.bytes(), as: UTF8.self)
    }

    // MARK: Values

    /// Scans one value. Objects and arrays append their canonical text to the
    /// scratch buffer; scalars append nothing (their caller does, so that a
    /// member can copy `"name":value` in one piece).
    @inline(__always)
    private mutating func scanValue(at index: inout Int, depth: Int, node: Int32) throws(ListFormatError) -> ValueDigest {
        let start = index
        guard index < count else { throw lexer.unexpected(at: index, expected: "a value") }
        switch base[index] {
        case ASCII.quote:
            let isEscaped = try lexer.scanString(at: &index)
            return ValueDigest(kind: isEscaped ? .escapedString : .string, start: start, end: index)
        case ASCII.openBrace:
            return try scanObject(at: &index, depth: depth + 1, node: node)
        case ASCII.openBracket:
            return try scanArray(at: &index, depth: depth + 1, node: node)
        case ASCII.minus, ASCII.zero...ASCII.nine:
            try lexer.scanNumber(at: &index)
            return ValueDigest(kind: .number, start: start, end: index)
        case UInt8(ascii: "t"):
            try lexer.scanLiteral("true", at: &index)
        case UInt8(ascii: "f"):
            try lexer.scanLiteral("false", at: &index)
        case UInt8(ascii: "n"):
            try lexer.scanLiteral("null", at: &index)
        case UInt8(ascii: "N") where lexer.matches("NaN", at: index), UInt8(ascii: "I") where lexer.matches("Infinity", at: index):
            throw .nonFiniteNumber(at: lexer.position(of: index))
        default:
            throw lexer.unexpected(at: index, expected: "a value")
        }
        return ValueDigest(kind: .literal, start: start, end: index)
    }

    private mutating func scanObject(at index: inout Int, depth: Int, node: Int32) throws(ListFormatError) -> ValueDigest {
        let start = index
        guard depth <= maxDepth else { throw .nestingTooDeep(limit: maxDepth, at: lexer.position(of: index)) }
        index += 1
        let firstMember = members.count
        let textStart = scratch.count
        if lexer.moveToFirstItem(&index, closing: ASCII.closeBrace) {
            repeat {
                guard index < count, base[index] == ASCII.quote else {
                    throw lexer.unexpected(at: index, expected: "a member name")
                }
                let nameQuote = index
                let nameIsEscaped = try lexer.scanString(at: &index)
                let nameEnd = index
                lexer.skipWhitespace(&index)
                guard index < count, base[index] == ASCII.colon else { throw lexer.unexpected(at: index, expected: "':'") }
                index += 1
                lexer.skipWhitespace(&index)

                let name = MemberSpan(
                    nameStart: nameQuote + 1, nameEnd: nameEnd - 1, isEscaped: nameIsEscaped,
                    textStart: scratch.count, textEnd: scratch.count)
                let child = fields.hasChildren(node) ? child(of: node, named: name) : JSONFieldTrie.none
                let isIgnored = fields.isIgnored(child)
                let valueStart = index
                let nameValue = ValueDigest(
                    kind: nameIsEscaped ? .escapedString : .string, start: nameQuote, end: nameEnd)
                var value: ValueDigest
                if index < count, base[index] == ASCII.openBrace || base[index] == ASCII.openBracket {
                    scratch.append(ASCII.comma)
                    appendCanonical(nameValue)
                    scratch.append(ASCII.colon)
                    let valueText = scratch.count
                    value = try scanValue(at: &index, depth: depth, node: child)
                    if fields.capture(child) >= 0 { value.hash = scratch.hash128(from: valueText) }
                } else {
                    value = try scanValue(at: &index, depth: depth, node: child)
                    scratch.append(ASCII.comma)
                    if !nameIsEscaped, value.isCanonicalInFile, valueStart == nameEnd + 1 {
                        // `"name":value` with no space and nothing to re-escape: canonical as is.
                        scratch.append(base + nameQuote, count: value.end - nameQuote)
                    } else {
                        appendCanonical(nameValue)
                        scratch.append(ASCII.colon)
                        appendCanonical(value)
                    }
                }
                capture(value, at: child)
                if isIgnored { scratch.truncate(to: name.textStart) }
                members.append(
                    MemberSpan(
                        nameStart: name.nameStart, nameEnd: name.nameEnd, isEscaped: nameIsEscaped,
                        textStart: name.textStart, textEnd: scratch.count))
            } while try lexer.moveToNextItem(&index, closing: ASCII.closeBrace)
        }
        try writeObjectText(from: textStart, firstMember: firstMember, isRecord: depth == 1)
        members.truncate(to: firstMember)
        return ValueDigest(kind: .object, start: start, end: index)
    }

    /// Turns the members' text (`,"a":1,"b":2` from `textStart`) into the
    /// object's canonical text (`{"a":1,"b":2}`), sorting the members. A
    /// nested object's text replaces its members' text; a record's sorted
    /// text is left where it was built (at ``recordTextStart``), since only its
    /// hash is needed.
    private mutating func writeObjectText(from textStart: Int, firstMember: Int, isRecord: Bool) throws(ListFormatError) {
        let objectMembers = members.elements(from: firstMember)
        let isNewShape: Bool
        do {
            isNewShape = try memberOrder.sort(objectMembers, base: base, isRecord: isRecord)
        } catch {
            let first = objectMembers[error.first]
            let second = objectMembers[error.second]
            throw .duplicateMemberName(
                String(decoding: decodedName(second), as: UTF8.self),
                at: lexer.position(of: second.nameStart - 1), first: lexer.position(of: first.nameStart - 1))
        }
        if isRecord, isNewShape { schema.add(objectMembers, base: base) }
        var listStart = textStart
        if !memberOrder.isFileOrder {
            listStart = scratch.count
            for position in 0..<objectMembers.count {
                let member = objectMembers[memberOrder.order[position]]
                scratch.appendCopy(from: member.textStart, count: member.textEnd - member.textStart)
            }
        }
        // Every member's text starts with a comma: the first one becomes the brace.
        if scratch.count > listStart { scratch[listStart] = ASCII.openBrace } else { scratch.append(ASCII.openBrace) }
        scratch.append(ASCII.closeBrace)
        if isRecord {
            recordTextStart = listStart
        } else if listStart != textStart {
            scratch.moveTail(from: listStart, to: textStart)
        }
    }

    private mutating func scanArray(at index: inout Int, depth: Int, node: Int32) throws(ListFormatError) -> ValueDigest {
        let start = index
        guard depth <= maxDepth else { throw .nestingTooDeep(limit: maxDepth, at: lexer.position(of: index)) }
        index += 1
        scratch.append(ASCII.openBracket)
        var hasElements = false
        var elementIndex = 0
        if lexer.moveToFirstItem(&index, closing: ASCII.closeBracket) {
            repeat {
                let child = fields.hasChildren(node) ? fields.child(of: node, index: elementIndex) : JSONFieldTrie.none
                let elementText = scratch.count
                if hasElements { scratch.append(ASCII.comma) }
                let valueText = scratch.count
                var value = try scanValue(at: &index, depth: depth, node: child)
                if value.isContainer {
                    if fields.capture(child) >= 0 { value.hash = scratch.hash128(from: valueText) }
                } else {
                    appendCanonical(value)
                }
                capture(value, at: child)
                if fields.isIgnored(child) { scratch.truncate(to: elementText) } else { hasElements = true }
                elementIndex += 1
            } while try lexer.moveToNextItem(&index, closing: ASCII.closeBracket)
        }
        scratch.append(ASCII.closeBracket)
        return ValueDigest(kind: .array, start: start, end: index)
    }

    @inline(__always)
    private mutating func capture(_ value: ValueDigest, at node: Int32) {
        let slot = fields.capture(node)
        if slot >= 0 { captures[slot] = value }
    }

    private mutating func child(of node: Int32, named name: MemberSpan) -> Int32 {
        guard name.isEscaped else { return fields.child(of: node, named: lexer.bytes(name.nameStart, name.nameEnd)) }
        decoded.truncate(to: 0)
        JSONString.appendDecoded(lexer.bytes(name.nameStart, name.nameEnd), to: &decoded)
        return fields.child(of: node, named: decoded.bytes())
    }

    /// The unescaped bytes of a member name.
    private mutating func decodedName(_ name: MemberSpan) -> [UInt8] {
        decoded.truncate(to: 0)
        JSONString.appendDecoded(lexer.bytes(name.nameStart, name.nameEnd), to: &decoded)
        return decoded.array()
    }
}
