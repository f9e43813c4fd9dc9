/// Collects bytes read from a socket and hands out complete protocol lines.
///
/// For clients that read with plain system calls (a NIO pipeline has its own decoder built on
/// ``LineFraming``). Memory is bounded by the limit: a longer line throws.
///
/// ```swift
/// var lines = LineBuffer()
/// lines.append(bytesJustRead)
/// while let line = try lines.nextLine() { handle(line) }
/// ```
public struct LineBuffer: Sendable {
    private var buffer: [UInt8] = []
    /// The start of the unread bytes in `buffer`.
    private var start = 0
    /// Bytes after `start` already searched for a line end.
    private var searched = 0
    /// The longest line accepted, without its line end.
    public let limit: Int

    /// A buffer for lines of up to `limit` bytes.
    public init(limit: Int = LineFraming.maximumLineLength) {
        self.limit = limit
    }

    /// The bytes received but not yet returned as lines.
    public var bufferedCount: Int { self.buffer.count - self.start }

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if self.start > 0, self.start >= self.buffer.count / 2 {
            self.buffer.removeFirst(self.start)
            self.start = 0
        }
        self.buffer.append(contentsOf: bytes)
    }

    /// The next complete line without its line end, or `nil` when none is complete yet.
    ///
    /// - Throws: ``ProtocolError`` ``ProtocolErrorCode/lineTooLong`` when the line exceeds
    ///   ``limit``; the stream cannot be read further.
    public mutating func nextLine() throws(ProtocolError) -> [UInt8]? {
        switch LineFraming.nextLine(in: self.buffer[self.start...], searchedPrefix: self.searched, limit: self.limit) {
        case .line(let length, let consumed):
            let line = Array(self.buffer[self.start..<self.start + length])
            self.start += consumed
            self.searched = 0
            return line
        case .incomplete(let resumeOffset):
            self.searched = resumeOffset
            return nil
        case .tooLong:
            throw ProtocolError(.lineTooLong, "a line is longer than \(self.limit) bytes")
        }
    }
}
