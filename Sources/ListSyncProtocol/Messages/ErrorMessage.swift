/// A request that failed, or a line that could not be read.
public struct ErrorMessage: Hashable, Sendable, CustomStringConvertible {
    /// The request's id; `nil` when it had none or could not be read.
    public var id: RequestID?
    /// What kind of failure.
    public var code: ProtocolErrorCode
    /// A human-readable explanation, with the position for `bad_json`.
    public var message: String

    /// An error answer.
    public init(id: RequestID?, code: ProtocolErrorCode, message: String) {
        self.id = id
        self.code = code
        self.message = message
    }

    /// The answer to a request that failed with `error`.
    public init(_ error: ProtocolError) {
        self.init(id: error.requestID, code: error.code, message: error.message)
    }

    /// `code: message`.
    public var description: String {
        "\(self.code.rawValue): \(self.message)"
    }
}
