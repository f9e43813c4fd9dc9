/// Turns byte offsets into line and column positions.
///
/// Readers only track byte offsets on their hot path; a position is worked out
/// when it is needed: ``position(ofByteOffset:in:)`` scans once for a single
/// error, a locator indexes the line starts once (O(*n*)) and then answers in
/// O(log *n* + line length), for tools that print many positions.
public struct SourceLocator: Sendable {
    private let bytes: [UInt8]
    /// The offset of the first byte of every line, ascending; starts with 0.
    private let lineStarts: [Int]

    /// Indexes the lines of `bytes`. O(*n*).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            Self.forEachLineStart(in: buffer, upTo: buffer.count) { starts.append($0) }
        }
        self.lineStarts = starts
    }

    /// The position of the byte at `offset` (clamped to the file).
    /// O(log *lines* + line length).
    public func position(ofByteOffset offset: Int) -> SourcePosition {
        let offset = min(max(offset, 0), bytes.count)
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return bytes.withUnsafeBufferPointer { buffer in
            Self.position(line: low + 1, lineStart: lineStarts[low], offset: offset, in: buffer)
        }
    }

    /// The position of the byte at `offset` in `bytes`, found with one scan
    /// from the start. O(*offset*); meant for a single error.
    public static func position(ofByteOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> SourcePosition {
        let offset = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        forEachLineStart(in: bytes, upTo: offset) { start in
            line += 1
            lineStart = start
        }
        return position(line: line, lineStart: lineStart, offset: offset, in: bytes)
    }

    /// Calls `body` with the start of every line after the first whose start is
    /// at most `limit`. A line ends at LF, at CRLF, or at a lone CR.
    private static func forEachLineStart(
        in bytes: UnsafeBufferPointer<UInt8>, upTo limit: Int, _ body: (Int) -> Void
    ) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == ASCII.carriageReturn, index < bytes.count, bytes[index] == ASCII.lineFeed {
                index += 1
            } else if byte != ASCII.carriageReturn, byte != ASCII.lineFeed {
                continue
            }
            guard index <= limit else { return }
            body(index)
        }
    }

    private static func position(
        line: Int, lineStart: Int, offset: Int, in bytes: UnsafeBufferPointer<UInt8>
    ) -> SourcePosition {
        var index = lineStart
        if index == 0, UTF8Validation.hasByteOrderMark(bytes) {
            index = min(3, offset)
        }
        var column = 1
        while index < offset {
            // Count scalars: every byte that is not a UTF-8 continuation byte.
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return SourcePosition(line: line, column: column, byteOffset: offset)
    }
}
