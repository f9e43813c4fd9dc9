/// How one CSV field is written: RFC 4180 quoting only where needed.
///
/// A value is quoted when it contains the delimiter, a quote, CR or LF (and,
/// for writers, when it would otherwise be a blank line); quotes inside are
/// doubled. The same encoding is the canonical form readers hash, so that
/// `a,"b"` and `a,b` have equal content.
enum CSVFieldEncoding {
    /// Whether `value` must be quoted.
    static func needsQuotes(_ value: UnsafeRawBufferPointer, delimiter: UInt8) -> Bool {
        value.contains { byte in
            byte == delimiter || byte == ASCII.quote || byte == ASCII.lineFeed || byte == ASCII.carriageReturn
        }
    }

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
