/// How protocol lines are cut out of a byte stream: up to each `\n`, a `\r` before it dropped,
/// at most ``maximumLineLength`` bytes of content.
///
/// One function serves every reader — the daemon's NIO decoder over a `ByteBuffer`, a client's
/// ``LineBuffer`` over an array — so the limit and the line-end rules are the same everywhere.
public enum LineFraming {
    /// The longest line a client may send, without its line end: 1 MiB. The server disconnects a
    /// client that exceeds it (after an `error` `line_too_long`).
    public static let maximumLineLength = 1 << 20

    /// The outcome of looking for the next line.
    public enum Outcome: Hashable, Sendable {
        /// A complete line: its content is the first `length` bytes (line end excluded), and
        /// `consumed` bytes (line end included) can be dropped.
        case line(length: Int, consumed: Int)
        /// No complete line yet; more bytes are needed. Search again from `resumeOffset`.
        case incomplete(resumeOffset: Int)
        /// The line is longer than the limit, whether or not its end has arrived.
        case tooLong
    }

    /// Finds the first line in `bytes`, whose first `searchedPrefix` bytes are known to contain no
    /// `\n` (the `resumeOffset` of an earlier ``Outcome/incomplete(resumeOffset:)``), so a line
    /// arriving in small pieces is scanned once overall.
    ///
    /// - Complexity: O(*n* − `searchedPrefix`).
    public static func nextLine<Bytes: Collection<UInt8>>(
        in bytes: Bytes, searchedPrefix: Int = 0, limit: Int = maximumLineLength
    ) -> Outcome {
        let searchStart = bytes.index(bytes.startIndex, offsetBy: min(searchedPrefix, bytes.count))
        guard let newline = bytes[searchStart...].firstIndex(of: UInt8(ascii: "\n")) else {
            // A `\r` may still come before the `\n`: allow one byte beyond the limit.
            return bytes.count > limit + 1 ? .tooLong : .incomplete(resumeOffset: bytes.count)
        }
        var length = bytes.distance(from: bytes.startIndex, to: newline)
        let consumed = length + 1
        if length > 0, bytes[bytes.index(newline, offsetBy: -1)] == UInt8(ascii: "\r") {
            length -= 1
        }
        return length > limit ? .tooLong : .line(length: length, consumed: consumed)
    }
}
