/// A single pass over a TOML document that records where every key, array element and table
/// header starts, for ``TOMLSourceMap``.
///
/// It understands exactly as much TOML as positions need — table and array-of-tables headers,
/// dotted and quoted keys, strings of all four kinds (so brackets and `#` inside them are not
/// misread), arrays and inline tables (so their elements get paths) — and skips every other value.
/// It expects text a TOML parser has already accepted; on anything else it stops early instead
/// of failing, keeping what it found.
struct TOMLSourceScanner {
    typealias Path = TOMLSourceMap.Path

    private let bytes: [UInt8]
    private var position = 0
    private var offsets: [Path: Int] = [:]
    /// How many tables each array of tables (`[[name]]`) has so far, so that later headers and
    /// keys refer to its last table.
    private var arrayTableCounts: [Path: Int] = [:]
    /// The table that `key = value` lines belong to: the last header's.
    private var currentTable: Path = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Scans the whole document and returns the byte offset of the first definition of each path.
    ///
    /// - Complexity: O(*n*) in the length of the text.
    mutating func scan() -> [Path: Int] {
        while self.position < self.bytes.count {
            self.skipInlineWhitespace()
            guard let byte = self.peek() else { break }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            case UInt8(ascii: "["):
                self.scanHeader()
            default:
                self.scanKeyValue(in: self.currentTable)
            }
            self.skipToNextLine()
        }
        return self.offsets
    }

    // MARK: - Structure

    private mutating func scanHeader() {
        let start = self.position
        let isArrayOfTables = self.byte(at: start + 1) == UInt8(ascii: "[")
        self.position += isArrayOfTables ? 2 : 1
        guard let keys = self.scanKey(), let last = keys.last else { return self.abandon() }
        if isArrayOfTables {
            let array = self.resolve(keys.dropLast()) + [.key(last)]
            let index = self.arrayTableCounts[array, default: 0]
            self.arrayTableCounts[array] = index + 1
            self.currentTable = array + [.index(index)]
        } else {
            self.currentTable = self.resolve(keys[...])
        }
        self.record(self.currentTable, at: start)
    }

    /// The path a header's keys name, descending into the last table of every array of tables
    /// on the way (`[watch.options]` after `[[watch]]` belongs to the latest watch).
    private func resolve(_ keys: ArraySlice<String>) -> Path {
        var path: Path = []
        for key in keys {
            path.append(.key(key))
            if let count = self.arrayTableCounts[path] {
                path.append(.index(count - 1))
            }
        }
        return path
    }

    private mutating func scanKeyValue(in table: Path) {
        let start = self.position
        guard let keys = self.scanKey() else { return self.abandon() }
        let path = table + keys.map(TOMLSourceMap.Component.key)
        self.record(path, at: start)
        self.skipInlineWhitespace()
        guard self.peek() == UInt8(ascii: "=") else { return self.abandon() }
        self.position += 1
        self.skipInlineWhitespace()
        self.scanValue(at: path)
    }

    private mutating func scanValue(at path: Path) {
        guard let byte = self.peek() else { return }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            if self.byte(at: self.position + 1) == byte, self.byte(at: self.position + 2) == byte {
                self.skipMultilineString(quote: byte)
            } else if self.scanString() == nil {
                self.abandon()
            }
        case UInt8(ascii: "["):
            self.scanElements(of: path, closingWith: UInt8(ascii: "]")) { scanner, elementPath in
                scanner.scanValue(at: elementPath)
            }
        case UInt8(ascii: "{"):
            self.scanElements(of: path, closingWith: UInt8(ascii: "}")) { scanner, _ in
                scanner.scanKeyValue(in: path)
            }
        default:
            self.skipBareValue()
        }
    }

    /// Scans the comma-separated elements of an array or inline table; `scanElement` scans one,
    /// given the path of the element's index (used by arrays; an inline table's keys name
    /// themselves).
    private mutating func scanElements(
        of path: Path,
        closingWith closing: UInt8,
        scanElement: (inout TOMLSourceScanner, Path) -> Void
    ) {
        self.position += 1
        var index = 0
        while true {
            self.skipWhitespaceCommentsAndNewlines()
            guard let byte = self.peek() else { return }
            if byte == closing {
                self.position += 1
                return
            }
            let start = self.position
            let elementPath = path + [.index(index)]
            if closing == UInt8(ascii: "]") { self.record(elementPath, at: start) }
            scanElement(&self, elementPath)
            index += 1
            self.skipWhitespaceCommentsAndNewlines()
            if self.peek() == UInt8(ascii: ",") {
                self.position += 1
            } else if self.peek() != closing || self.position == start {
                return self.abandon()
            }
        }
    }

    /// Records `path` and every prefix of it not recorded yet: a header `[a.b]` also defines `a`.
    private mutating func record(_ path: Path, at offset: Int) {
        guard !path.isEmpty else { return }
        for length in 1...path.count {
            let prefix = Array(path[..<length])
            if self.offsets[prefix] == nil { self.offsets[prefix] = offset }
        }
    }

    // MARK: - Keys and strings

    /// A possibly dotted key, each part bare or quoted; `nil` if there is no key here.
    private mutating func scanKey() -> [String]? {
        var parts: [String] = []
        while true {
            self.skipInlineWhitespace()
            guard let byte = self.peek() else { return nil }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard let part = self.scanString() else { return nil }
                parts.append(part)
            } else if Self.isBareKeyByte(byte) {
                let start = self.position
                while let next = self.peek(), Self.isBareKeyByte(next) { self.position += 1 }
                parts.append(String(decoding: self.bytes[start..<self.position], as: UTF8.self))
            } else {
                return nil
            }
            self.skipInlineWhitespace()
            guard self.peek() == UInt8(ascii: ".") else { return parts }
            self.position += 1
        }
    }

    /// A single-line basic (`"..."`, escapes decoded) or literal (`'...'`) string, with the
    /// position after its closing quote; `nil` if it is not terminated on its line.
    private mutating func scanString() -> String? {
        guard let quote = self.peek() else { return nil }
        let decodesEscapes = quote == UInt8(ascii: "\"")
        self.position += 1
        var decoded: [UInt8] = []
        while let byte = self.peek() {
            self.position += 1
            switch byte {
            case quote:
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\n"):
                return nil
            case UInt8(ascii: "\\") where decodesEscapes:
                guard let escaped = self.scanEscape() else { return nil }
                decoded.append(contentsOf: escaped)
            default:
                decoded.append(byte)
            }
        }
        return nil
    }

    /// The UTF-8 bytes of the escape sequence after a backslash.
    private mutating func scanEscape() -> [UInt8]? {
        guard let letter = self.peek() else { return nil }
        self.position += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "t"): 0x09, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "f"): 0x0C,
            UInt8(ascii: "r"): 0x0D, UInt8(ascii: "e"): 0x1B, UInt8(ascii: "\""): UInt8(ascii: "\""),
            UInt8(ascii: "\\"): UInt8(ascii: "\\"),
        ]
        if let byte = simple[letter] { return [byte] }
        let digits: Int
        switch letter {
        case UInt8(ascii: "x"): digits = 2
        case UInt8(ascii: "u"): digits = 4
        case UInt8(ascii: "U"): digits = 8
        default: return nil
        }
        guard self.position + digits <= self.bytes.count,
            let value = UInt32(String(decoding: self.bytes[self.position..<self.position + digits], as: UTF8.self), radix: 16),
            let scalar = Unicode.Scalar(value)
        else { return nil }
        self.position += digits
        return Array(String(Character(scalar)).utf8)
    }

    /// Skips a `"""` or `'''` string, which may span lines and end with up to two extra quotes.
    private mutating func skipMultilineString(quote: UInt8) {
        self.position += 3
        while let byte = self.peek() {
            if byte == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") {
                self.position += 2
            } else if byte == quote, self.byte(at: self.position + 1) == quote, self.byte(at: self.position + 2) == quote {
                self.position += 3
                for _ in 0..<2 where self.peek() == quote { self.position += 1 }
                return
            } else {
                self.position += 1
            }
        }
    }

    /// Skips a number, boolean or date (which may contain a space): everything up to the next
    /// delimiter.
    private mutating func skipBareValue() {
        let start = self.position
        while let byte = self.peek(), !Self.isValueDelimiter(byte) { self.position += 1 }
        if self.position == start { self.abandon() }
    }

    // MARK: - Bytes

    private func peek() -> UInt8? {
        self.byte(at: self.position)
    }

    private func byte(at offset: Int) -> UInt8? {
        offset < self.bytes.count ? self.bytes[offset] : nil
    }

    private mutating func skipInlineWhitespace() {
        while let byte = self.peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { self.position += 1 }
    }

    private mutating func skipToNextLine() {
        while let byte = self.peek() {
            self.position += 1
            if byte == UInt8(ascii: "\n") { return }
        }
    }

    private mutating func skipWhitespaceCommentsAndNewlines() {
        while let byte = self.peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                self.position += 1
            case UInt8(ascii: "#"):
                while let next = self.peek(), next != UInt8(ascii: "\n") { self.position += 1 }
            default:
                return
            }
        }
    }

    /// Stops the scan: the text is not the TOML this scanner expects.
    private mutating func abandon() {
        self.position = self.bytes.count
    }

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private static func isValueDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "\n"),
            UInt8(ascii: "\r"):
            return true
        default:
            return false
        }
    }
}
