extension ClientMessage {
    /// The message as one line of JSON, `\n` included.
    ///
    /// - Complexity: O(*n*) in the size of the line.
    public func encoded() -> [UInt8] {
        var writer = JSONLineWriter(type: self.type)
        switch self {
        case .hello(let hello):
            writer.array("protocol") { array in
                for version in hello.protocols { array.element(version) }
            }
            if let client = hello.client {
                writer.member("client", client)
            }
        case .list(let id), .ping(let id), .metrics(let id):
            writer.requestID(id)
        case .subscribe(let id, let watch, let since):
            writer.requestID(id)
            writer.member("watch", watch)
            if let since {
                writer.member("since", since.description)
            }
        case .unsubscribe(let id, let watch):
            writer.requestID(id)
            writer.member("watch", watch)
        }
        return writer.finish()
    }
}
