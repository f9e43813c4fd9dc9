/// How a protocol line is cut into messages that fit the server's maximum payload, which counts
/// a message's headers as well as its payload.
public enum JetStreamParts {
    /// The bytes `headers` take in a message: `NATS/1.0␍␊`, each `Name: Value␍␊`, and the blank
    /// line that ends them.
    public static func headerBytes(_ headers: [(String, String)]) -> Int {
        headers.reduce("NATS/1.0\r\n".utf8.count + 2) { $0 + $1.0.utf8.count + 2 + $1.1.utf8.count + 2 }
    }

    /// The headers of the largest message do not leave room for a single byte of the line.
    public struct HeadersTooLarge: Error, Sendable, CustomStringConvertible {
        /// The headers' size, in bytes.
        public var headerBytes: Int
        /// The server's maximum payload, in bytes.
        public var maximumPayload: Int

        public var description: String {
            "a message's headers take \(self.headerBytes) bytes, and the server takes at most \(self.maximumPayload) (max_payload): nothing of the line fits"
        }
    }

    /// `line` in consecutive slices (at least one, even for an empty line) that each fit
    /// `maximumPayload` with the headers of their message. `headers(parts)` gives the largest
    /// headers a message of a line in `parts` parts can have (the part number, sequences and
    /// message ID at their longest): the slices are sized for it.
    public static func split(
        _ line: [UInt8], maximumPayload: Int, headers: (_ parts: Int) -> [(String, String)]
    ) throws(HeadersTooLarge) -> [ArraySlice<UInt8>] {
        var parts = 1
        while true {
            let headerBytes = Self.headerBytes(headers(parts))
            let size = maximumPayload - headerBytes
            guard size > 0 else { throw HeadersTooLarge(headerBytes: headerBytes, maximumPayload: maximumPayload) }
            let needed = max(1, (line.count + size - 1) / size)
            // More parts can only lengthen the headers (the part numbers): size again for them.
            guard needed <= parts else {
                parts = needed
                continue
            }
            guard line.count > size else { return [line[...]] }
            return stride(from: 0, to: line.count, by: size).map { line[$0..<min($0 + size, line.count)] }
        }
    }
}
