import ListFormats

/// A value bound to a statement parameter: what the sink writes into a column.
enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// A list value as a column value: strings as text, numbers as integers or reals when they
    /// are exactly that (else their literal text), booleans as 0/1, `null` as NULL, arrays and
    /// objects as JSON text.
    init(_ value: ListValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .integer(flag ? 1 : 0)
        case .number(let literal):
            if let integer = Int64(literal) {
                self = .integer(integer)
            } else if let real = Double(literal), real.isFinite {
                self = .real(real)
            } else {
                self = .text(literal)
            }
        case .string(let string): self = .text(string)
        case .array, .object: self = .text(value.jsonText)
        }
    }
}
