import ListFormats

/// Turns one protocol line into JSON values and messages.
public enum MessageParser {
    /// The JSON value on `line` (without its line end); `nil` for a blank line, which carries no
    /// message and is skipped.
    ///
    /// - Throws: ``ProtocolError`` ``ProtocolErrorCode/badJSON`` with the column and byte offset of
    ///   the fault, or ``ProtocolErrorCode/badRequest`` for a top-level array.
    /// - Complexity: O(*n*) in the length of the line.
    public static func value(ofLine line: some Collection<UInt8>) throws(ProtocolError) -> ListValue? {
        let decoded = line.withContiguousStorageIfAvailable(Self.decoder.value(ofLine:))
            ?? Array(line).withUnsafeBufferPointer(Self.decoder.value(ofLine:))
        if let decoded { return decoded }
        return try readerValue(ofLine: line)
    }

    /// The value of `line` as the NDJSON reader reads it: for the lines ``decoder`` leaves to it,
    /// errors above all, which it words with their positions.
    static func readerValue(ofLine line: some Collection<UInt8>) throws(ProtocolError) -> ListValue? {
        let parsed: ParsedList
        do {
            parsed = try Self.reader.read(bytes: Array(line))
        } catch {
            if case .arrayRecord = error {
                throw ProtocolError(.badRequest, "a message must be a JSON object, not an array")
            }
            guard let position = error.position else {
                throw ProtocolError(.badJSON, error.message)
            }
            throw ProtocolError(.badJSON, "\(error.message) at column \(position.column) (byte \(position.byteOffset))")
        }
        return parsed.records.first.map(parsed.value(of:))
    }

    /// The client message on `line`; `nil` for a blank line.
    ///
    /// - Throws: ``ProtocolError``, see ``value(ofLine:)`` and ``ClientMessage/init(decoding:)``.
    public static func clientMessage(ofLine line: some Collection<UInt8>) throws(ProtocolError) -> ClientMessage? {
        guard let value = try Self.value(ofLine: line) else { return nil }
        return try ClientMessage(decoding: value)
    }

    /// The server message on `line`; `nil` for a blank line.
    ///
    /// - Throws: ``ProtocolError``, see ``value(ofLine:)`` and ``ServerMessage/init(decoding:)``.
    public static func serverMessage(ofLine line: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage? {
        guard let value = try Self.value(ofLine: line) else { return nil }
        var message = try ServerMessage(decoding: value)
        if case .changesetPart(var part) = message {
            // What a client holding parts counts against its bound.
            part.lineLength = line.count
            message = .changesetPart(part)
        }
        return message
    }

    /// How much deeper a record's value sits in a message than in a watched file, at most: in a
    /// changeset, message → `stages` → stage → `section_inserted` → section → `records` →
    /// record is 7 levels (a snapshot's is 5), and one to spare.
    public static let envelopeDepth = 8

    /// How deep a message may nest: whatever a watched file may hold
    /// (``ReadOptions/defaultMaxNestingDepth``, the daemon's limit) inside the deepest envelope,
    /// so that a client decodes every record the daemon publishes.
    public static let maxNestingDepth = ReadOptions.defaultMaxNestingDepth + envelopeDepth

    /// A line is one NDJSON record: the NDJSON reader parses it with positions, rejects duplicate
    /// member names and anything after the value.
    private static let options = ReadOptions(format: .ndjson, maxNestingDepth: maxNestingDepth)

    /// Reads the lines that ``decoder`` does not accept, for their errors.
    private static let reader = ListReader(options: options)

    /// Builds a well-formed line's value in one pass (no canonical text or hash, which a message
    /// never uses); accepts only lines that ``reader`` reads as one object, with the same value.
    private static let decoder = JSONLineDecoder(options: options)
}
