/// The `id` a client gives a request; the server copies it into the `reply` or `error`.
///
/// JSON numbers are kept as their literal text, so `7`, `7.0` and `1e400` all come back exactly
/// as the client wrote them.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    /// A JSON number, as written.
    case number(String)
    /// A JSON string.
    case string(String)

    /// A numeric id.
    public init(_ value: Int) {
        self = .number(String(value))
    }

    /// The id as it appears in JSON: the number's text, or the string in quotes.
    public var description: String {
        switch self {
        case .number(let literal): return literal
        case .string(let string): return "\"\(string)\""
        }
    }
}
