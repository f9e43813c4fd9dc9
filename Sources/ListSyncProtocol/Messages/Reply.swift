/// The successful answer to a request.
public struct Reply: Hashable, Sendable {
    /// The request's id.
    public var id: RequestID
    /// What the request produced.
    public var result: ReplyResult

    /// A reply to request `id`.
    public init(id: RequestID, result: ReplyResult) {
        self.id = id
        self.result = result
    }
}
