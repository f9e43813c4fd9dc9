/// Compact JSON text written exactly as ListFormats writes list files and hashes records: strings
/// with one fixed spelling per character (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00XX` for
/// other control characters, everything else as UTF-8), numbers as their literal text, members in
/// order.
///
/// For the modules above ListFormats that write JSON of their own — the protocol's line writer,
/// the changeset encoding — so that ListSync has one JSON string escaper.
public enum JSONText {
    /// Appends `string` as a JSON string literal, quotes included. Runs without escapes are copied
    /// whole. O(*n*) in the string's UTF-8 length.
    public static func appendString(_ string: String, to bytes: inout [UInt8]) {
        JSONValueEncoder.appendString(string, to: &bytes)
    }

    /// Appends `value` as compact JSON: no whitespace, members in their order. O(size).
    public static func append(_ value: ListValue, to bytes: inout [UInt8]) {
        JSONValueEncoder.append(value, to: &bytes)
    }
}
