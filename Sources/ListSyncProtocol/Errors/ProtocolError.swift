/// A message that could not be read or a request that cannot be served: what the server answers
/// with an `error`, and what decoding a message throws.
public struct ProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public var code: ProtocolErrorCode
    /// A precise explanation: which field, what was expected and found, or where the JSON broke.
    public var message: String
    /// The id of the request, when it could be read.
    public var requestID: RequestID?

    /// An error.
    public init(_ code: ProtocolErrorCode, _ message: String, requestID: RequestID? = nil) {
        self.code = code
        self.message = message
        self.requestID = requestID
    }

    /// `code: message`.
    public var description: String {
        "\(self.code.rawValue): \(self.message)"
    }
}
