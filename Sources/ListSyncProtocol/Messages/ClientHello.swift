/// A client's `hello`.
public struct ClientHello: Hashable, Sendable {
    /// The protocol versions the client speaks; the server picks the highest it also speaks.
    public var protocols: [Int]
    /// Free text naming the client, e.g. `listsync 0.1`, for the server's log.
    public var client: String?

    /// A hello offering `protocols`.
    public init(protocols: [Int] = ProtocolVersion.supported, client: String? = nil) {
        self.protocols = protocols
        self.client = client
    }
}
