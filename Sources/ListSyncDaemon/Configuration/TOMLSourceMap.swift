/// Where each key, array element and table header of a TOML document starts.
///
/// TOMLKit reports positions for syntax errors only; a value it returns does not know where it
/// came from. The configuration loader needs a line for semantic errors too ("unknown format" on
/// the line of `format = ...`), so this map is built by scanning the text once
/// (``TOMLSourceScanner``) after TOMLKit accepted it, and queried by the same paths the loader
/// walks.
struct TOMLSourceMap {
    /// One step of a path into the document.
    enum Component: Hashable, CustomStringConvertible {
        /// A key of a table (each part of a dotted key is one component).
        case key(String)
        /// An element of an array, or a table of an array of tables (`[[watch]]`), from 0.
        case index(Int)

        var description: String {
            switch self {
            case .key(let key): return key
            case .index(let index): return "[\(index)]"
            }
        }
    }

    /// A path from the root table: `[.key("watch"), .index(1), .key("format")]` is the
    /// `format` key of the second `[[watch]]`.
    typealias Path = [Component]

    /// The text, as the byte offsets refer to it.
    private let bytes: [UInt8]
    /// The byte offset at which each line starts; `lineStarts[0] == 0`.
    private let lineStarts: [Int]
    /// The byte offset where each path was first defined.
    private let offsets: [Path: Int]

    /// Maps `bytes`, a TOML document TOMLKit has accepted.
    ///
    /// Text that is not valid TOML does not crash the scan; the map then holds the paths found
    /// before the first surprise.
    ///
    /// - Complexity: O(*n*) in the length of the text.
    init(bytes: [UInt8]) {
        self.bytes = bytes
        var lineStarts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            lineStarts.append(offset + 1)
        }
        self.lineStarts = lineStarts
        var scanner = TOMLSourceScanner(bytes: bytes)
        self.offsets = scanner.scan()
    }

    /// The byte offset where `path` was defined, or where its nearest defined ancestor was
    /// (a value inside an array written on one line has no position of its own); `nil` when
    /// not even the first component was found.
    func byteOffset(of path: Path) -> Int? {
        var prefix = path[...]
        while !prefix.isEmpty {
            if let offset = self.offsets[Array(prefix)] { return offset }
            prefix = prefix.dropLast()
        }
        return nil
    }

    /// The location of `path` (see ``byteOffset(of:)``), or of the start of the file.
    func location(of path: Path, file: String) -> ConfigurationLocation {
        self.location(ofByteOffset: self.byteOffset(of: path) ?? 0, file: file)
    }

    /// The line and column of a byte offset.
    ///
    /// - Complexity: O(log *l* + *c*) for *l* lines and a column *c*.
    func location(ofByteOffset offset: Int, file: String) -> ConfigurationLocation {
        let offset = min(max(offset, 0), self.bytes.count)
        var low = 0
        var high = self.lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if self.lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let lineStart = self.lineStarts[low]
        let scalarsBefore = self.bytes[lineStart..<offset].count { !Self.isContinuationByte($0) }
        return ConfigurationLocation(file: file, line: low + 1, column: scalarsBefore + 1, byteOffset: offset)
    }

    /// The location of a (line, column) pair as a TOML parser reports it, with its byte offset
    /// computed; positions past the end of a line or of the file are clamped to it.
    func location(line: Int, column: Int, file: String) -> ConfigurationLocation {
        let lineIndex = min(max(line, 1), self.lineStarts.count) - 1
        let lineEnd = lineIndex + 1 < self.lineStarts.count ? self.lineStarts[lineIndex + 1] : self.bytes.count
        var offset = self.lineStarts[lineIndex]
        var scalars = 1
        while scalars < column, offset < lineEnd {
            offset += 1
            while offset < lineEnd, Self.isContinuationByte(self.bytes[offset]) { offset += 1 }
            scalars += 1
        }
        return ConfigurationLocation(file: file, line: lineIndex + 1, column: scalars, byteOffset: offset)
    }

    private static func isContinuationByte(_ byte: UInt8) -> Bool {
        byte & 0b1100_0000 == 0b1000_0000
    }
}
