/// Splits CSV rows into fields, over the file's bytes.
///
/// The scanner never copies: a field is a byte range of the file, marked with
/// how it was quoted, and values are built only when someone asks. It looks
/// for the next delimiter, quote or line end eight bytes at a time
/// (``ByteWord``), which keeps it near memory speed on typical rows.
///
/// Grammar (RFC 4180, as Python's `csv` reads it): a field is either quoted —
/// `"` … `"` with `""` for a quote, line breaks allowed inside — or unquoted,
/// running to the next delimiter or line end (a quote inside an unquoted
/// field is an ordinary character). A row ends at LF, CRLF or a lone CR.
struct CSVScanner {
    private let base: UnsafePointer<UInt8>
    let count: Int
    let delimiter: UInt8
    private let delimiterPattern: UInt64
    private static let quotePattern = ByteWord.splat(ASCII.quote)
    private static let lineFeedPattern = ByteWord.splat(ASCII.lineFeed)
    private static let carriageReturnPattern = ByteWord.splat(ASCII.carriageReturn)

    init(base: UnsafePointer<UInt8>, count: Int, delimiter: UInt8) {
        self.base = base
        self.count = count
        self.delimiter = delimiter
        self.delimiterPattern = ByteWord.splat(delimiter)
    }

    /// A row found by ``scanRow(at:into:)``.
    struct Row {
        /// The row's first byte.
        var start: Int
        /// The end of the row's content (its line ending excluded).
        var end: Int
        /// Where the next row starts (after the line ending).
        var next: Int
        /// Whether any field of the row contains or is wrapped in quotes.
        var hasQuote: Bool
    }

    /// The index of the first delimiter, quote, CR or LF at or after `start`,
    /// or `count`.
    @inline(__always)
    private func nextSpecial(from start: Int) -> Int {
        var index = start
        while index + 8 <= count {
            let word = ByteWord(loadingFrom: base, at: index)
            let terms =
                word.equalityTerm(delimiterPattern) & word.equalityTerm(Self.quotePattern)
                & word.equalityTerm(Self.lineFeedPattern) & word.equalityTerm(Self.carriageReturnPattern)
            let mask = ByteWord.mask(fromAnded: terms)
            if mask != 0 { return index + ByteWord.firstByte(in: mask) }
            index += 8
        }
        while index < count {
            let byte = base[index]
            if byte == delimiter || byte == ASCII.quote || byte == ASCII.lineFeed || byte == ASCII.carriageReturn {
                return index
            }
            index += 1
        }
        return count
    }

    /// The index of the first quote at or after `start`, or `count`.
    @inline(__always)
    private func nextQuote(from start: Int) -> Int {
        var index = start
        while index + 8 <= count {
            let mask = ByteWord.mask(fromAnded: ByteWord(loadingFrom: base, at: index).equalityTerm(Self.quotePattern))
            if mask != 0 { return index + ByteWord.firstByte(in: mask) }
            index += 8
        }
        while index < count, base[index] != ASCII.quote { index += 1 }
        return index
    }

    /// Skips line endings (empty lines) from `start`; returns the first index
    /// that starts a row, or `count`, and adds the lines skipped to `skipped`.
    func skipBlankLines(from start: Int, skipped: inout Int) -> Int {
        var index = start
        while index < count, base[index] == ASCII.lineFeed || base[index] == ASCII.carriageReturn {
            index = endOfLineEnding(at: index)
            skipped += 1
        }
        return index
    }

    /// The index after the line ending (LF, CRLF or CR) at `index`.
    @inline(__always)
    private func endOfLineEnding(at index: Int) -> Int {
        if base[index] == ASCII.carriageReturn, index + 1 < count, base[index + 1] == ASCII.lineFeed {
            return index + 2
        }
        return index + 1
    }

    /// Scans the row starting at `start` (which must not be at a line end or
    /// at the end), replacing the contents of `fields` with its fields.
    /// O(row length).
    func scanRow(at start: Int, into fields: inout ScratchArray<CSVField>) throws(ListFormatError) -> Row {
        fields.truncate(to: 0)
        var index = start
        var hasQuote = false
        while true {
            if index < count, base[index] == ASCII.quote {
                hasQuote = true
                let opening = index
                index += 1
                let valueStart = index
                var hasEscapes = false
                while true {
                    index = nextQuote(from: index)
                    guard index < count else { throw .unterminatedQuote(at: position(of: opening)) }
                    guard index + 1 < count, base[index + 1] == ASCII.quote else { break }
                    hasEscapes = true
                    index += 2
                }
                fields.append(CSVField(start: valueStart, end: index, quoting: hasEscapes ? .quotedWithEscapes : .quoted))
                index += 1
                guard index < count else { break }
                let byte = base[index]
                if byte == delimiter {
                    index += 1
                    continue
                }
                guard byte == ASCII.lineFeed || byte == ASCII.carriageReturn else {
                    throw .characterAfterClosingQuote(at: position(of: index))
                }
                break
            } else {
                let fieldStart = index
                index = nextSpecial(from: index)
                while index < count, base[index] == ASCII.quote {
                    hasQuote = true
                    index = nextSpecial(from: index + 1)
                }
                fields.append(CSVField(start: fieldStart, end: index, quoting: .none))
                guard index < count, base[index] == delimiter else { break }
                index += 1
            }
        }
        let end = index
        let next = index < count ? endOfLineEnding(at: index) : index
        return Row(start: start, end: end, next: next, hasQuote: hasQuote)
    }

    /// The bytes of `field` as they are in the file (inside the quotes for a
    /// quoted field).
    @inline(__always)
    func rawBytes(of field: CSVField) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + field.start, count: field.end - field.start)
    }

    /// Appends the value of `field` (with `""` turned into `"`) to `output`.
    func appendValue(of field: CSVField, to output: inout ByteScratch) {
        guard field.quoting == .quotedWithEscapes else {
            output.append(base + field.start, count: field.end - field.start)
            return
        }
        var index = field.start
        while index < field.end {
            let quote = nextQuote(from: index)
            let runEnd = min(quote, field.end)
            output.append(base + index, count: runEnd - index)
            guard runEnd < field.end else { break }
            output.append(ASCII.quote)
            index = runEnd + 2
        }
    }

    /// The value of `field` as a string.
    func string(of field: CSVField) -> String {
        guard field.quoting == .quotedWithEscapes else {
            return String(decoding: rawBytes(of: field), as: UTF8.self)
        }
        var value = ByteScratch(capacity: field.end - field.start)
        appendValue(of: field, to: &value)
        return String(decoding: value.bytes(), as: UTF8.self)
    }

    /// Where `field` starts in the file, its opening quote included.
    func startOfField(_ field: CSVField) -> Int {
        field.quoting == .none ? field.start : field.start - 1
    }

    /// The line and column of `offset`.
    func position(of offset: Int) -> SourcePosition {
        SourceLocator.position(ofByteOffset: offset, in: UnsafeBufferPointer(start: base, count: count))
    }
}
