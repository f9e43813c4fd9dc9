import ListFormats

extension ClientMessage {
    /// Decodes a client message from its parsed line.
    ///
    /// Unknown fields are ignored; a field that is `null` counts as absent.
    ///
    /// - Throws: ``ProtocolError`` with ``ProtocolErrorCode/badRequest`` (not an object, a
    ///   missing or mistyped field: the message names it), ``ProtocolErrorCode/unknownType`` or
    ///   ``ProtocolErrorCode/badCursor``; the error carries the request's id when it could be read.
    public init(decoding value: ListValue) throws(ProtocolError) {
        let envelope = try MessageFields(value)
        let id = try RequestID(decodingMemberOf: envelope)
        let fields = try MessageFields(value, requestID: id)
        let type = try fields.string("type")
        func requiredID() throws(ProtocolError) -> RequestID {
            guard let id else { throw fields.error("missing field \"id\" (every request but hello has one)") }
            return id
        }
        switch type {
        case "hello":
            var protocols: [Int] = []
            for (index, element) in try fields.array("protocol").enumerated() {
                guard case .number(let literal) = element, let version = Int(literal) else {
                    throw fields.error("field \"protocol[\(index)]\" must be an integer, not \(element.jsonText)")
                }
                protocols.append(version)
            }
            self = .hello(ClientHello(protocols: protocols, client: try fields.optionalString("client")))
        case "list":
            self = .list(id: try requiredID())
        case "subscribe":
            let id = try requiredID()
            let watch = try fields.string("watch")
            let since = try fields.optionalParsed("since", as: "a cursor (\"<16 hex digits>:<seq>\")", code: .badCursor, Cursor.init)
            self = .subscribe(id: id, watch: watch, since: since)
        case "unsubscribe":
            self = .unsubscribe(id: try requiredID(), watch: try fields.string("watch"))
        case "ping":
            self = .ping(id: try requiredID())
        case "metrics":
            self = .metrics(id: try requiredID())
        default:
            throw ProtocolError(.unknownType, "unknown message type \"\(type)\"", requestID: id)
        }
    }
}

extension RequestID {
    /// The `id` member of `fields`, if any.
    ///
    /// - Throws: `bad_request` when it is neither a number nor a string.
    init?(decodingMemberOf fields: MessageFields) throws(ProtocolError) {
        switch fields.optional("id") {
        case nil: return nil
        case .number(let literal): self = .number(literal)
        case .string(let string): self = .string(string)
        case let other?: throw fields.error("field \"id\" must be a number or a string, not \(other.kindDescription)")
        }
    }
}
