/// A scanned JSON value: where it is and what kind it is.
struct ValueDigest {
    enum Kind: UInt8 {
        /// A string without escapes: its bytes, quotes included, are canonical.
        case string
        /// A string with escapes.
        case escapedString
        /// A number: its literal text is canonical.
        case number
        /// `true`, `false` or `null`.
        case literal
        case object
        case array
    }

    var kind: Kind
    /// The value's first byte, or -1 for ``absent``.
    var start: Int
    /// The index after the value's last byte.
    var end: Int
    /// For a captured object or array, the hash of its canonical text.
    var hash = ContentHash(low: 0, high: 0)

    /// No value: a field that a record does not have.
    static let absent = ValueDigest(kind: .literal, start: -1, end: -1)

    /// Whether this is ``absent``.
    var isAbsent: Bool { start < 0 }

    /// Whether the value is an object or an array.
    var isContainer: Bool { kind == .object || kind == .array }

    /// Whether the value's bytes in the file are its canonical form.
    @inline(__always)
    var isCanonicalInFile: Bool {
        kind == .string || kind == .number || kind == .literal
    }
}
