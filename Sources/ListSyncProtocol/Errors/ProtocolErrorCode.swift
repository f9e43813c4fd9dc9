/// The `code` of an `error` message.
public enum ProtocolErrorCode: String, Hashable, Sendable, CaseIterable {
    /// The line is not valid JSON.
    case badJSON = "bad_json"
    /// A field is missing or has the wrong type, or the line is not a JSON object.
    case badRequest = "bad_request"
    /// A request came before `hello`.
    case helloRequired = "hello_required"
    /// Client and server speak no protocol version in common; the connection closes.
    case unsupportedVersion = "unsupported_version"
    /// The message's `type` is not one the server knows.
    case unknownType = "unknown_type"
    /// No watch has that name.
    case unknownWatch = "unknown_watch"
    /// `since` is not a cursor (`"<16 hex digits>:<seq>"`).
    case badCursor = "bad_cursor"
    /// A line exceeded the 1 MiB limit; the connection closes.
    case lineTooLong = "line_too_long"
    /// A line was left unfinished longer than the server's limit (`partial_line_timeout_ms`);
    /// the connection closes.
    case lineTimeout = "line_timeout"
    /// The peer's user is not allowed to connect; the connection closes.
    case notPermitted = "not_permitted"

    /// Whether the server closes the connection after sending this error.
    public var closesConnection: Bool {
        switch self {
        case .lineTooLong, .lineTimeout, .unsupportedVersion, .notPermitted:
            return true
        case .badJSON, .badRequest, .helloRequired, .unknownType, .unknownWatch, .badCursor:
            return false
        }
    }
}
