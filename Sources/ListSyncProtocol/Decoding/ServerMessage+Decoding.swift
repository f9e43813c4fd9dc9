import ListFormats

extension ServerMessage {
    /// Decodes a server message from its parsed line (the client's side of the protocol).
    ///
    /// Unknown fields are ignored; a field that is `null` counts as absent. A pushed message of a
    /// type this version does not know throws ``ProtocolErrorCode/unknownType``: a client should
    /// ignore it.
    ///
    /// - Throws: ``ProtocolError`` (``ProtocolErrorCode/badRequest`` naming the field, or
    ///   ``ProtocolErrorCode/unknownType``).
    public init(decoding value: ListValue) throws(ProtocolError) {
        let fields = try MessageFields(value)
        let type = try fields.string("type")
        switch type {
        case "hello":
            self = .hello(
                ServerHello(
                    protocolVersion: try fields.integer("protocol"),
                    server: try fields.optionalString("server") ?? "",
                    instance: try fields.parsed("instance", as: "an epoch (16 hex digits)", Epoch.init),
                    watches: try fields.objects("watches").map { fields throws(ProtocolError) in try WatchSummary(decoding: fields) }
                ))
        case "reply":
            self = .reply(try Reply(decoding: fields))
        case "error":
            self = .error(
                ErrorMessage(
                    id: try RequestID(decodingMemberOf: fields),
                    code: try fields.parsed("code", as: "an error code") { ProtocolErrorCode(rawValue: $0) },
                    message: try fields.optionalString("message") ?? ""
                ))
        case "snapshot":
            self = .snapshot(try SnapshotChunk(decoding: fields))
        case "changeset" where fields.optional("part") != nil:
            let last = try fields.bool("last")
            self = .changesetPart(
                ChangesetPartMessage(
                    watch: try fields.string("watch"),
                    cursor: try fields.parsed("cursor", as: "a cursor", Cursor.init),
                    prevSeq: try fields.integer("prev_seq", as: UInt64.self),
                    part: try fields.integer("part"),
                    last: last,
                    continues: fields.optional("continues") == nil ? false : try fields.bool("continues"),
                    stages: try fields.stages("stages"),
                    digest: last ? try fields.parsed("digest", as: "a digest (64 hex digits)", ListDigest.init) : nil,
                    schema: fields.optional("schema") == nil ? nil : try SchemaUpdate(decoding: fields.object("schema"))
                ))
        case "changeset":
            let cursor = try fields.parsed("cursor", as: "a cursor", Cursor.init)
            self = .changeset(
                ChangesetMessage(
                    watch: try fields.string("watch"),
                    cursor: cursor,
                    prevSeq: try fields.integer("prev_seq", as: UInt64.self),
                    stages: try fields.stages("stages"),
                    digest: try fields.parsed("digest", as: "a digest (64 hex digits)", ListDigest.init),
                    schema: fields.optional("schema") == nil ? nil : try SchemaUpdate(decoding: fields.object("schema"))
                ))
        case "status":
            let problem: WatchProblem?
            if fields.optional("error") != nil {
                problem = try WatchProblem(decoding: fields.object("error"))
            } else {
                problem = nil
            }
            // A state added after this client was built: skipped like an unknown pushed type.
            let state = try fields.parsed("state", as: "a watch state", code: .unknownType) { WatchState(rawValue: $0) }
            self = .status(
                StatusMessage(
                    watch: try fields.string("watch"),
                    state: state,
                    error: problem,
                    warnings: try fields.warnings(),
                    since: try fields.optionalInteger("since", as: Int64.self)
                ))
        case "heartbeat":
            self = .heartbeat(time: try fields.integer("time", as: Int64.self))
        case "goodbye":
            self = .goodbye(reason: try fields.parsed("reason", as: "a goodbye reason") { GoodbyeReason(rawValue: $0) })
        default:
            throw ProtocolError(.unknownType, "unknown message type \"\(type)\"")
        }
    }
}

extension WatchSummary {
    init(decoding fields: MessageFields) throws(ProtocolError) {
        self.init(
            name: try fields.string("name"),
            format: try fields.string("format"),
            sectioned: try fields.bool("sectioned"),
            state: try fields.parsed("state", as: "a watch state") { WatchState(rawValue: $0) },
            cursor: try fields.optionalParsed("cursor", as: "a cursor", Cursor.init),
            rows: try fields.optionalInteger("rows"),
            key: fields.optional("key") == nil ? [] : try fields.strings("key"),
            warnings: try fields.warnings(),
            path: try fields.optionalString("path"),
            since: try fields.optionalInteger("since", as: Int64.self),
            error: fields.optional("error") == nil ? nil : try WatchProblem(decoding: fields.object("error"))
        )
    }
}

extension Reply {
    init(decoding fields: MessageFields) throws(ProtocolError) {
        guard let id = try RequestID(decodingMemberOf: fields) else {
            throw fields.error("missing field \"id\"")
        }
        let result: ReplyResult
        switch try fields.string("request") {
        case "list":
            result = .list(try fields.objects("watches").map { fields throws(ProtocolError) in try WatchSummary(decoding: fields) })
        case "subscribe":
            result = .subscribed(
                ReplyResult.Subscription(
                    watch: try fields.string("watch"),
                    mode: try fields.parsed("mode", as: "a subscription mode") { ReplyResult.Subscription.Mode(rawValue: $0) },
                    cursor: try fields.optionalParsed("cursor", as: "a cursor", Cursor.init),
                    reason: try fields.optionalString("reason").flatMap(ReplyResult.Subscription.SnapshotReason.init(rawValue:))
                ))
        case "unsubscribe":
            result = .unsubscribed(watch: try fields.string("watch"))
        case "ping":
            result = .pong
        case "metrics":
            result = .metrics(exposition: try fields.string("text"))
        case let other:
            throw fields.error("a reply to an unknown request type \"\(other)\"")
        }
        self.init(id: id, result: result)
    }
}

extension SnapshotChunk {
    init(decoding fields: MessageFields) throws(ProtocolError) {
        var sections: [SnapshotSection] = []
        for section in try fields.objects("sections") {
            var records: [ChangesetStage.Record] = []
            for record in try section.objects("records") {
                records.append(ChangesetStage.Record(value: try record.required("value"), hash: try record.contentHash("hash")))
            }
            sections.append(
                SnapshotSection(
                    index: try section.integer("index"),
                    section: ChangesetStage.Section(model: section.optional("model") ?? .null, hash: try section.contentHash("hash")),
                    records: records
                ))
        }
        self.init(
            watch: try fields.string("watch"),
            cursor: try fields.parsed("cursor", as: "a cursor", Cursor.init),
            chunk: try fields.integer("chunk"),
            last: try fields.bool("last"),
            fresh: try fields.bool("fresh"),
            sectioned: try fields.bool("sectioned"),
            schema: ListSchema(columns: try fields.object("schema").strings("columns")),
            sections: sections,
            digest: try fields.optionalParsed("digest", as: "a digest (64 hex digits)", ListDigest.init)
        )
    }
}

extension SchemaUpdate {
    init(decoding fields: MessageFields) throws(ProtocolError) {
        var renamed: [SchemaChange.Rename] = []
        for pair in try fields.objects("renamed") {
            renamed.append(SchemaChange.Rename(from: try pair.string("from"), to: try pair.string("to")))
        }
        self.init(
            schema: ListSchema(columns: try fields.strings("columns")),
            change: SchemaChange(
                added: try fields.strings("added"),
                removed: try fields.strings("removed"),
                renamed: renamed,
                reordered: try fields.strings("reordered")
            )
        )
    }
}

extension WatchProblem {
    init(decoding fields: MessageFields) throws(ProtocolError) {
        let line: Int? = try fields.optionalInteger("line")
        let column: Int? = try fields.optionalInteger("column")
        let offset: Int? = try fields.optionalInteger("offset")
        var position: SourcePosition?
        if let line, let column, let offset {
            position = SourcePosition(line: line, column: column, byteOffset: offset)
        }
        self.init(message: try fields.string("message"), position: position)
    }
}

extension MessageFields {
    /// The problems in `warnings`; none when the member is absent (servers before it).
    func warnings() throws(ProtocolError) -> [WatchProblem] {
        guard self.optional("warnings") != nil else { return [] }
        return try self.objects("warnings").map { fields throws(ProtocolError) in try WatchProblem(decoding: fields) }
    }

    func contentHash(_ name: String) throws(ProtocolError) -> ContentHash {
        try self.parsed(name, as: "a content hash (32 hex digits)", ContentHash.init)
    }

    /// The staged changeset in member `name`, decoded by `ChangesetDecoder`.
    func stages(_ name: String) throws(ProtocolError) -> [ChangesetStage] {
        let value = try self.required(name)
        do {
            return try ChangesetDecoder.decode(value)
        } catch {
            throw self.error("field \"\(name)\" is not a valid changeset: \(error)")
        }
    }
}
