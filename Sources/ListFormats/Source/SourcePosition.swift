/// A place in a file: line and column for people, byte offset for tools.
public struct SourcePosition: Hashable, Sendable {
    /// The line, counting from 1. LF, CRLF and a lone CR each end a line.
    public var line: Int

    /// The column, counting from 1, in Unicode scalars (a byte-order mark is
    /// not counted).
    public var column: Int

    /// The offset in bytes from the start of the file, counting from 0.
    public var byteOffset: Int

    /// Creates a position.
    public init(line: Int, column: Int, byteOffset: Int) {
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }
}

extension SourcePosition: Comparable {
    /// Positions order by byte offset.
    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        lhs.byteOffset < rhs.byteOffset
    }
}

extension SourcePosition: CustomStringConvertible {
    /// `line:column`, the form compilers and editors use after a file name.
    public var description: String {
        "\(line):\(column)"
    }
}
