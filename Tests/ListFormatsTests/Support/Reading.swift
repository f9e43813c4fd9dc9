import ListFormats
import Testing

/// Reads `text` with the given options.
func read(
    _ text: String, _ format: ListFormat, key: [String] = [], sectionBy: String? = nil, ignore: [String] = [],
    raggedRows: RaggedRowPolicy = .error
) throws(ListFormatError) -> ParsedList {
    try ListReader(
        options: ReadOptions(format: format, key: key, sectionBy: sectionBy, ignore: ignore, raggedRows: raggedRows)
    ).read(bytes: Array(text.utf8))
}

/// The error reading `text` throws, or `nil` when it reads.
func readError(
    _ text: String, _ format: ListFormat, key: [String] = [], sectionBy: String? = nil,
    raggedRows: RaggedRowPolicy = .error
) -> ListFormatError? {
    readError(Array(text.utf8), format, key: key, sectionBy: sectionBy, raggedRows: raggedRows)
}

/// The error reading `bytes` throws, or `nil` when it reads.
func readError(
    _ bytes: [UInt8], _ format: ListFormat, key: [String] = [], sectionBy: String? = nil,
    raggedRows: RaggedRowPolicy = .error
) -> ListFormatError? {
    do {
        _ = try ListReader(options: ReadOptions(format: format, key: key, sectionBy: sectionBy, raggedRows: raggedRows))
            .read(bytes: bytes)
        return nil
    } catch {
        return error
    }
}

let csv = ListFormat.csv(delimiter: .comma)

/// A CSV record: an object of strings.
func row(_ pairs: KeyValuePairs<String, String>) -> ListValue {
    .object(pairs.map { ListValue.Member(name: $0.key, value: .string($0.value)) })
}

/// A JSON object with members in the given order.
func object(_ pairs: KeyValuePairs<String, ListValue>) -> ListValue {
    .object(pairs.map { ListValue.Member(name: $0.key, value: $0.value) })
}

extension ListValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension ListValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) {
        self = .number(String(value))
    }
}

/// The (line, column) of an error, for compact expectations.
func lineAndColumn(_ error: ListFormatError?) -> [Int]? {
    guard let position = error?.position else { return nil }
    return [position.line, position.column]
}
