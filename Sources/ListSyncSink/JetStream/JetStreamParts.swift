/// How a protocol line is cut into messages that fit the server's maximum payload.
public enum JetStreamParts {
    /// Room left in each message for its headers.
    static let headerRoom = 1024

    /// `line` in consecutive slices of at most `maximumPayload` minus room for the headers
    /// (at least one slice, even for an empty line).
    public static func split(_ line: [UInt8], maximumPayload: Int) -> [ArraySlice<UInt8>] {
        let size = max(1024, maximumPayload - Self.headerRoom)
        guard line.count > size else { return [line[...]] }
        return stride(from: 0, to: line.count, by: size).map { line[$0..<min($0 + size, line.count)] }
    }
}
