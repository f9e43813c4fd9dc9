/// How one CSV field is written: RFC 4180 quoting only where needed.
///
/// A value is quoted when it contains the delimiter, a quote, CR or LF (and,
/// for writers, when it would otherwise be a blank line); quotes inside are
/// doubled. The same encoding is the canonical form readers hash, so that
/// `a,"b"` and `a,b` have equal content.
enum CSVFieldEncoding {
    /// Whether `value` must be quoted.
    static func needsQuotes(_ value: UnsafeRawBufferPointer, delimiter: UInt8) -> Bool {
        guard let base = value.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        let delimiters = ByteWord.splat(delimiter)
        var index = 0
        // Eight bytes at a time (ByteWord's tests are exact).
        while index + 8 <= value.count {
            let word = ByteWord(loadingFrom: base, at: index)
            let terms =
                word.equalityTerm(delimiters) & word.equalityTerm(quotes) & word.equalityTerm(lineFeeds)
                & word.equalityTerm(carriageReturns)
            if ByteWord.mask(fromAnded: terms) != 0 { return true }
            index += 8
        }
        for byte in value[index...]
        where byte == delimiter || byte == ASCII.quote || byte == ASCII.lineFeed || byte == ASCII.carriageReturn {
            return true
        }
        return false
    }

    private static let quotes = ByteWord.splat(ASCII.quote)
    private static let lineFeeds = ByteWord.splat(ASCII.lineFeed)
    private static let carriageReturns = ByteWord.splat(ASCII.carriageReturn)

    /// Appends `value`, quoted if needed (or if `forceQuotes`), to `output`.
    static func append(
        _ value: UnsafeRawBufferPointer, delimiter: UInt8, forceQuotes: Bool = false, to output: inout ByteScratch
    ) {
        guard forceQuotes || needsQuotes(value, delimiter: delimiter) else {
            output.append(value)
            return
        }
        output.append(ASCII.quote)
        var runStart = 0
        for (index, byte) in value.enumerated() where byte == ASCII.quote {
            output.append(UnsafeRawBufferPointer(rebasing: value[runStart...index]))
            output.append(ASCII.quote)
            runStart = index + 1
        }
        output.append(UnsafeRawBufferPointer(rebasing: value[runStart...]))
        output.append(ASCII.quote)
    }
}
