import ListFormats
@testable import ListSyncProtocol

/// Helpers to go from messages to lines and back, as a peer would.
enum Lines {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The line without its `\n`; fails if the encoder did not end it with exactly one.
    static func content(of line: [UInt8]) throws -> ArraySlice<UInt8> {
        guard line.last == UInt8(ascii: "\n"), line.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil else {
            throw Failure(description: "not exactly one line: \(String(decoding: line, as: UTF8.self))")
        }
        return line.dropLast()
    }

    static func decodeClient(_ line: [UInt8]) throws -> ClientMessage? {
        try MessageParser.clientMessage(ofLine: content(of: line))
    }

    static func decodeServer(_ line: [UInt8]) throws -> ServerMessage? {
        try MessageParser.serverMessage(ofLine: content(of: line))
    }

    /// The client message on a line of text, or the error decoding it.
    static func client(_ text: String) -> Result<ClientMessage?, ProtocolError> {
        Result { () throws(ProtocolError) in try MessageParser.clientMessage(ofLine: Array(text.utf8)) }
    }

    /// Parses `text` as one JSON value.
    static func value(_ text: String) throws -> ListValue {
        guard let value = try MessageParser.value(ofLine: Array(text.utf8)) else {
            throw Failure(description: "blank line")
        }
        return value
    }

    /// Reads a small list from CSV text.
    static func csv(_ text: String, key: [String] = ["id"], sectionBy: String? = nil) throws -> ParsedList {
        try read(text, ListSyncProtocolTests.csv, key: key, sectionBy: sectionBy)
    }
}

/// Reads a small list from `text`.
func read(_ text: String, _ format: ListFormat, key: [String] = [], sectionBy: String? = nil) throws(ListFormatError) -> ParsedList {
    try ListReader(options: ReadOptions(format: format, key: key, sectionBy: sectionBy)).read(bytes: Array(text.utf8))
}

let csv = ListFormat.csv(delimiter: .comma)

/// A JSON object with members in the given order.
func object(_ pairs: KeyValuePairs<String, ListValue>) -> ListValue {
    .object(pairs.map { ListValue.Member(name: $0.key, value: $0.value) })
}
