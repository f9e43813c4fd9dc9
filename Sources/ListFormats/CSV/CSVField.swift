/// A field of a CSV row: a byte range of the file and how it was quoted.
struct CSVField {
    /// How a field was written.
    enum Quoting: UInt8 {
        /// Unquoted: the bytes are the value.
        case none
        /// Quoted without `""` inside: the bytes between the quotes are the value.
        case quoted
        /// Quoted with `""` inside: the value needs unescaping.
        case quotedWithEscapes
    }

    /// The first byte of the value (after the opening quote).
    var start: Int
    /// The end of the value (before the closing quote).
    var end: Int
    /// How the field was written.
    var quoting: Quoting
}
