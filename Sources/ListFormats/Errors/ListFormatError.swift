/// Why a list could not be read.
///
/// Every error about the content of a file carries the ``SourcePosition``
/// where the problem is, so that tools can print `file:line:column: message`.
public enum ListFormatError: Error, Hashable, Sendable {
    // MARK: Files

    /// The file could not be opened or read; `errno` is the system's code.
    case cannotRead(path: String, errno: Int32)

    /// The file is larger than the reader's ``ReadOptions/sizeLimit``.
    case fileTooLarge(size: Int, limit: Int)

    /// The bytes at `at` are not well-formed UTF-8.
    case invalidUTF8(at: SourcePosition)

    // MARK: Options

    /// A key, `section_by` or `ignore` field names no column of the CSV header
    /// (`at` is the header's position).
    case unknownColumn(String, at: SourcePosition)

    /// A field name given in the options is not a valid field name or JSON
    /// Pointer (for example `"/a/~2"`).
    case invalidFieldName(String)

    /// `section_by` was given for a JSON file that is already an object of
    /// sections (`at` is the top-level object).
    case sectionByOnSectionedFile(at: SourcePosition)

    // MARK: CSV

    /// The file has no header row.
    case missingHeader(at: SourcePosition)

    /// Header column `column` (counting from 1) has an empty name.
    case emptyHeaderName(column: Int, at: SourcePosition)

    /// Header column `column` repeats the name of column `firstColumn`.
    case duplicateHeaderName(String, column: Int, firstColumn: Int, at: SourcePosition)

    /// A quoted field opened at `at` is never closed.
    case unterminatedQuote(at: SourcePosition)

    /// Something other than a delimiter or a line end follows the closing
    /// quote of a field.
    case characterAfterClosingQuote(at: SourcePosition)

    /// A row has `found` fields where the header has `expected` (only with
    /// ``RaggedRowPolicy/error``).
    case raggedRow(expected: Int, found: Int, at: SourcePosition)

    // MARK: JSON

    /// A byte that the grammar does not allow here; `expected` says what would
    /// have been allowed.
    case unexpectedCharacter(expected: String, at: SourcePosition)

    /// The file ends inside a value; `expected` says what was missing.
    case unexpectedEndOfInput(expected: String, at: SourcePosition)

    /// A comma directly before `]` or `}`.
    case trailingComma(at: SourcePosition)

    /// A `//` or `/*` comment, which JSON does not have.
    case comment(at: SourcePosition)

    /// `NaN`, `Infinity` or `-Infinity`, which JSON does not have.
    case nonFiniteNumber(at: SourcePosition)

    /// A number that does not follow RFC 8259 (leading zero, missing digits).
    case invalidNumber(at: SourcePosition)

    /// A backslash escape that JSON does not define, or a lone surrogate.
    case invalidEscape(at: SourcePosition)

    /// A control character (below U+0020) inside a string.
    case unescapedControlCharacter(at: SourcePosition)

    /// An object has two members with the same name (after unescaping).
    case duplicateMemberName(String, at: SourcePosition, first: SourcePosition)

    /// The top-level value is neither an array nor an object of arrays.
    case unexpectedTopLevelValue(found: String, at: SourcePosition)

    /// A member of a sectioned (object-of-arrays) file is not an array.
    case sectionNotArray(String, at: SourcePosition)

    /// A record is an array; records are objects or scalars.
    case arrayRecord(at: SourcePosition)

    /// Values are nested deeper than ``ReadOptions/maxNestingDepth``.
    case nestingTooDeep(limit: Int, at: SourcePosition)

    /// Something other than whitespace follows the top-level value (or, in
    /// NDJSON, follows a record on its line).
    case trailingContent(at: SourcePosition)

    /// An NDJSON record continues past the end of its line (`at` is the line
    /// break inside it).
    case recordSpansLines(at: SourcePosition)

    // MARK: Identity

    /// A record has no value for a key or `section_by` field.
    case missingField(String, at: SourcePosition)

    /// Two different `section_by` values (`"1"` and `1`, `"true"` and `true`, `""` and `null`)
    /// have the same text, which names a section in a JSON rendering (an object of arrays) and
    /// in JSON Patch paths: as two members of one name, one section would hide the other.
    case sectionNameCollision(String, at: SourcePosition, first: SourcePosition)
}

extension ListFormatError {
    /// Where in the file the problem is, when it is about the file's content.
    public var position: SourcePosition? {
        switch self {
        case .cannotRead, .fileTooLarge, .invalidFieldName:
            nil
        case .invalidUTF8(let at), .unknownColumn(_, let at), .sectionByOnSectionedFile(let at),
            .missingHeader(let at), .emptyHeaderName(_, let at), .duplicateHeaderName(_, _, _, let at),
            .unterminatedQuote(let at), .characterAfterClosingQuote(let at), .raggedRow(_, _, let at),
            .unexpectedCharacter(_, let at), .unexpectedEndOfInput(_, let at), .trailingComma(let at),
            .comment(let at), .nonFiniteNumber(let at), .invalidNumber(let at), .invalidEscape(let at),
            .unescapedControlCharacter(let at), .duplicateMemberName(_, let at, _),
            .unexpectedTopLevelValue(_, let at), .sectionNotArray(_, let at), .arrayRecord(let at),
            .nestingTooDeep(_, let at), .trailingContent(let at), .recordSpansLines(let at),
            .missingField(_, let at), .sectionNameCollision(_, let at, _):
            at
        }
    }

    /// What went wrong, without the position.
    public var message: String {
        switch self {
        case .cannotRead(let path, let errno):
            "cannot read \(path) (errno \(errno))"
        case .fileTooLarge(let size, let limit):
            "file is \(size) bytes, larger than the limit of \(limit) bytes"
        case .invalidUTF8:
            "invalid UTF-8"
        case .unknownColumn(let name, _):
            "no column named \"\(name)\" in the header"
        case .invalidFieldName(let name):
            "\"\(name)\" is not a valid field name or JSON Pointer"
        case .sectionByOnSectionedFile:
            "section_by cannot be used on a file that is already an object of sections"
        case .missingHeader:
            "missing header row"
        case .emptyHeaderName(let column, _):
            "header column \(column) has an empty name"
        case .duplicateHeaderName(let name, let column, let firstColumn, _):
            "header column \(column) repeats the name \"\(name)\" of column \(firstColumn)"
        case .unterminatedQuote:
            "quoted field is never closed"
        case .characterAfterClosingQuote:
            "unexpected character after the closing quote of a field"
        case .raggedRow(let expected, let found, _):
            "row has \(found) fields, the header has \(expected)"
        case .unexpectedCharacter(let expected, _):
            "unexpected character, expected \(expected)"
        case .unexpectedEndOfInput(let expected, _):
            "unexpected end of file, expected \(expected)"
        case .trailingComma:
            "trailing comma"
        case .comment:
            "comments are not allowed in JSON"
        case .nonFiniteNumber:
            "NaN and Infinity are not allowed in JSON"
        case .invalidNumber:
            "invalid number"
        case .invalidEscape:
            "invalid escape sequence"
        case .unescapedControlCharacter:
            "control character in a string must be escaped"
        case .duplicateMemberName(let name, _, let first):
            "duplicate member name \"\(name)\" (first at \(first))"
        case .unexpectedTopLevelValue(let found, _):
            "top-level value is \(found); expected an array of records or an object of arrays"
        case .sectionNotArray(let name, _):
            "section \"\(name)\" is not an array"
        case .arrayRecord:
            "a record is an array; records must be objects or scalars"
        case .nestingTooDeep(let limit, _):
            "values nested deeper than \(limit) levels"
        case .trailingContent:
            "unexpected content after the end of the value"
        case .recordSpansLines:
            "an NDJSON record must fit on one line"
        case .missingField(let name, _):
            "record has no field \"\(name)\""
        case .sectionNameCollision(let name, _, let first):
            "section_by value names the section \"\(name)\" like a different value first at \(first) (a section is named by its value's text, so \"1\" and 1, \"true\" and true, \"\" and null name one section): make them one value"
        }
    }
}

extension ListFormatError: CustomStringConvertible {
    /// `line:column: message`, or just the message when there is no position.
    public var description: String {
        guard let position else { return message }
        return "\(position): \(message)"
    }
}
