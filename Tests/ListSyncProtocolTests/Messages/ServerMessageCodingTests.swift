import ListDiff
import ListFormats
import ListSyncProtocol
import Testing

@Suite struct ServerMessageCodingTests {
    static let epoch = Epoch(rawValue: 0x5f0c_2a4e_19b7_d3a8)
    static let digest = ListDigest(String(repeating: "0123456789abcdef", count: 4))!
    static let watches = [
        WatchSummary(name: "products", format: "csv", sectioned: true, state: .ok, cursor: Cursor(epoch: epoch, seq: 12), rows: 1200),
        WatchSummary(name: "log", format: "ndjson", sectioned: false, state: .loading, cursor: nil, rows: nil, path: "/var/log/app.ndjson"),
        WatchSummary(
            name: "export", format: "csv", sectioned: false, state: .writing, cursor: Cursor(epoch: epoch, seq: 4), rows: 27,
            path: "/srv/export.csv", since: 1_795_752_012_345),
        WatchSummary(
            name: "teams", format: "json", sectioned: true, state: .ok, cursor: Cursor(epoch: epoch, seq: 0), rows: 9,
            warnings: [WatchProblem(message: "2 records repeat the key of an earlier one; the first is here", position: SourcePosition(line: 7, column: 5, byteOffset: 88))]),
    ]

    static let messages: [ServerMessage] = [
        .hello(ServerHello(protocolVersion: 1, server: "listsyncd 0.1", instance: epoch, watches: watches)),
        .hello(ServerHello(protocolVersion: 1, server: "", instance: Epoch(rawValue: 0), watches: [])),
        .reply(Reply(id: RequestID(1), result: .list(watches))),
        .reply(Reply(id: .string("s"), result: .subscribed(.init(watch: "products", mode: .resume, cursor: Cursor(epoch: epoch, seq: 3))))),
        .reply(Reply(id: RequestID(2), result: .subscribed(.init(watch: "log", mode: .snapshot, cursor: nil)))),
        .reply(Reply(id: .number("3.50"), result: .unsubscribed(watch: "products"))),
        .reply(Reply(id: RequestID(4), result: .pong)),
        .reply(Reply(id: RequestID(5), result: .metrics(exposition: "# HELP a_total A \"counter\".\n# TYPE a_total counter\na_total{watch=\"x\"} 1\n"))),
        .status(StatusMessage(watch: "products", state: .ok)),
        .status(StatusMessage(watch: "products", state: .invalid, error: WatchProblem(message: "quoted field is never closed", position: SourcePosition(line: 14, column: 9, byteOffset: 612)))),
        .status(StatusMessage(watch: "products", state: .missing, error: WatchProblem(message: "no such file"))),
        .status(StatusMessage(watch: "gone", state: .removed)),
        .status(StatusMessage(watch: "export", state: .writing, since: 1_795_752_012_345)),
        .status(StatusMessage(
            watch: "products", state: .ok,
            warnings: [WatchProblem(message: "1 record repeats the key of an earlier one; the first is here", position: SourcePosition(line: 4, column: 1, byteOffset: 40))])),
        .heartbeat(time: 1_763_745_600_123),
        .goodbye(reason: .shutdown),
        .goodbye(reason: .slowConsumer),
        .changeset(ChangesetMessage(
            watch: "products", cursor: Cursor(epoch: epoch, seq: 13), prevSeq: 12,
            stages: [
                ChangesetStage(elementUpdated: [.init(path: ElementPath(element: 3, section: 0), record: .init(value: .object([.init(name: "id", value: .number("3"))]), hash: ContentHash(low: 5, high: 6)))]),
                ChangesetStage(elementDeleted: [ElementPath(element: 1, section: 0)], elementMoved: [.init(source: ElementPath(element: 0, section: 0), target: ElementPath(element: 2, section: 0))]),
            ], digest: digest, schema: nil)),
        .changeset(ChangesetMessage(
            watch: "products", cursor: Cursor(epoch: epoch, seq: 1), prevSeq: 0, stages: [], digest: digest,
            schema: SchemaUpdate(schema: ListSchema(columns: ["sku", "title", "price"]), change: SchemaChange(
                added: ["price"], removed: ["old"], renamed: [.init(from: "name", to: "title")], reordered: ["sku", "title"])))),
        .snapshot(SnapshotChunk(
            watch: "products", cursor: Cursor(epoch: epoch, seq: 12), chunk: 0, last: false, fresh: true, sectioned: true,
            schema: ListSchema(columns: ["sku", "category"]),
            sections: [SnapshotSection(index: 0, section: .init(model: .string("fruit"), hash: ContentHash(low: 1, high: 2)), records: [.init(value: .object([.init(name: "sku", value: .string("A1"))]), hash: ContentHash(low: 3, high: 4))])],
            digest: nil)),
        .snapshot(SnapshotChunk(
            watch: "log", cursor: Cursor(epoch: epoch, seq: 0), chunk: 3, last: true, fresh: true, sectioned: false,
            schema: ListSchema(columns: []), sections: [SnapshotSection(index: 0, section: .init(model: .null, hash: ContentHash(low: .max, high: 0)), records: [])],
            digest: digest)),
    ]

    @Test(arguments: messages)
    func roundTrips(_ message: ServerMessage) throws {
        #expect(try Lines.decodeServer(message.encoded()) == message)
    }

    @Test(arguments: ProtocolErrorCode.allCases)
    func roundTripsEveryErrorCode(_ code: ProtocolErrorCode) throws {
        for id in [nil, RequestID(5), .string("five")] as [RequestID?] {
            let message = ServerMessage.error(ErrorMessage(id: id, code: code, message: "what \"went\" wrong"))
            #expect(try Lines.decodeServer(message.encoded()) == message)
        }
    }

    @Test func marksPushedMessages() throws {
        for message in Self.messages {
            let value = try Lines.value(String(decoding: Lines.content(of: message.encoded()), as: UTF8.self))
            #expect(value[member: "push"] == (message.isPush ? .bool(true) : nil), "\(message.type)")
        }
    }

    @Test func encodesTheDocumentedStatusShape() {
        let status = ServerMessage.status(StatusMessage(
            watch: "products", state: .invalid,
            error: WatchProblem(message: "unterminated quoted field", position: SourcePosition(line: 14, column: 9, byteOffset: 612))))
        #expect(String(decoding: status.encoded(), as: UTF8.self) == #"{"type":"status","push":true,"watch":"products","state":"invalid","error":{"message":"unterminated quoted field","line":14,"column":9,"offset":612}}"# + "\n")
    }

    @Test func encodesWarningsOnlyWhenThereAreAny() {
        let warned = ServerMessage.status(StatusMessage(
            watch: "products", state: .ok,
            warnings: [WatchProblem(message: "1 record repeats the key of an earlier one; the first is here", position: SourcePosition(line: 4, column: 1, byteOffset: 40))]))
        #expect(String(decoding: warned.encoded(), as: UTF8.self) == #"{"type":"status","push":true,"watch":"products","state":"ok","warnings":[{"message":"1 record repeats the key of an earlier one; the first is here","line":4,"column":1,"offset":40}]}"# + "\n")
        #expect(String(decoding: ServerMessage.status(StatusMessage(watch: "products", state: .ok)).encoded(), as: UTF8.self) == #"{"type":"status","push":true,"watch":"products","state":"ok"}"# + "\n")
    }

    @Test func writesPreEncodedStagesVerbatim() throws {
        let stages = Array(#"[{"element_deleted":[[0,0]]}]"#.utf8)
        let line = ServerMessage.encodedChangeset(
            watch: "w", cursor: Cursor(epoch: Self.epoch, seq: 7), digest: Self.digest, schema: nil, stagesJSON: stages)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""prev_seq":6,"stages":[{"element_deleted":[[0,0]]}],"digest":""#))
        guard case .changeset(let decoded) = try Lines.decodeServer(line) else {
            Issue.record("not a changeset")
            return
        }
        #expect(decoded.prevSeq == 6)
        #expect(decoded.stages == [ChangesetStage(elementDeleted: [ElementPath(element: 0, section: 0)])])
    }

    /// Strings go on the wire escaped as ListFormats writes list files and hashes records (issue 18
    /// item 2: one escaper): a record's value is the bytes `ListValue.jsonText` gives, with `\b` and
    /// `\f` by name, and a message's own strings are escaped the same way.
    @Test func escapesStringsAsListFormatsWritesThem() throws {
        let awkward = String(String.UnicodeScalarView((0..<0x20).compactMap { Unicode.Scalar($0) })) + "\"\\/é😀"
        let value = ListValue.object([.init(name: awkward, value: .string(awkward))])
        let chunk = ServerMessage.snapshot(SnapshotChunk(
            watch: awkward, cursor: Cursor(epoch: Self.epoch, seq: 1), chunk: 0, last: true, fresh: true, sectioned: false,
            schema: ListSchema(columns: [awkward]),
            sections: [SnapshotSection(index: 0, section: .init(model: .null, hash: ContentHash(low: 1, high: 2)), records: [.init(value: value, hash: ContentHash(low: 3, high: 4))])],
            digest: Self.digest))
        let text = String(decoding: chunk.encoded(), as: UTF8.self)
        #expect(text.contains(#""value":\#(value.jsonText)}"#), "\(text)")
        #expect(text.contains(#""watch":\#(ListValue.string(awkward).jsonText)"#), "\(text)")
        #expect(text.contains(#"\u0007\b\t\n\u000b\f\r"#), "\(text)")
        #expect(!text.contains(#"\u0008"#) && !text.contains(#"\u000c"#), "\(text)")
        #expect(try Lines.decodeServer(chunk.encoded()) == chunk)
        let error = ServerMessage.error(ErrorMessage(id: .string(awkward), code: .badRequest, message: awkward))
        #expect(String(decoding: error.encoded(), as: UTF8.self).contains(#""message":\#(ListValue.string(awkward).jsonText)"#))
        #expect(try Lines.decodeServer(error.encoded()) == error)
    }

    @Test func reportsAMalformedChangesetAsABadRequest() {
        let line = #"{"type":"changeset","watch":"w","cursor":"0000000000000001:2","prev_seq":1,"digest":"\#(Self.digest)","stages":[{"element_deleted":[[0]]}]}"#
        #expect(throws: ProtocolError(.badRequest, #"field "stages" is not a valid changeset: stages[0].element_deleted[0]: expected an array of two"#)) {
            try MessageParser.serverMessage(ofLine: Array(line.utf8))
        }
    }

    /// A fault in a snapshot's record names the record's place (its path is spelled only for the
    /// error, not for every record decoded).
    @Test func namesTheRecordOfAMalformedSnapshotChunk() {
        let section = #"{"index":0,"model":null,"hash":"\#(ListValue.null.contentHash)","records":[{"hash":"\#(ListValue.null.contentHash)","value":1},"#
        let line = #"{"type":"snapshot","watch":"w","cursor":"0000000000000001:2","chunk":0,"last":false,"fresh":true,"sectioned":false,"schema":{"columns":[]},"sections":[\#(section){"hash":"\#(ListValue.null.contentHash)"}]}]}"#
        #expect(throws: ProtocolError(.badRequest, #"missing field "sections[0].records[1].value""#)) {
            try MessageParser.serverMessage(ofLine: Array(line.utf8))
        }
        let notAnObject = #"{"type":"snapshot","watch":"w","cursor":"0000000000000001:2","chunk":0,"last":false,"fresh":true,"sectioned":false,"schema":{"columns":[]},"sections":[\#(section)7]}]}"#
        #expect(throws: ProtocolError(.badRequest, #""sections[0].records[1]" must be a JSON object, not a number"#)) {
            try MessageParser.serverMessage(ofLine: Array(notAnObject.utf8))
        }
    }

    @Test func ignoresUnknownFields() throws {
        let line = #"{"type":"heartbeat","push":true,"time":5,"extra":{"a":[null]}}"#
        #expect(try MessageParser.serverMessage(ofLine: Array(line.utf8)) == .heartbeat(time: 5))
    }

    /// A status in a state this client does not know (a later addition) is skipped like a
    /// pushed message of an unknown type, not taken for a broken stream.
    @Test func skipsAStatusInAnUnknownState() {
        do {
            let message = try MessageParser.serverMessage(ofLine: Array(#"{"type":"status","push":true,"watch":"w","state":"frozen"}"#.utf8))
            Issue.record("decoded as \(message)")
        } catch {
            #expect(error.code == .unknownType, "\(error)")
        }
    }

    @Test func rejectsUnknownPushedTypes() {
        #expect(throws: ProtocolError(.unknownType, #"unknown message type "fireworks""#)) {
            try MessageParser.serverMessage(ofLine: Array(#"{"type":"fireworks","push":true}"#.utf8))
        }
    }

    @Test func namesTheNestedFieldThatIsWrong() {
        let line = #"{"type":"hello","protocol":1,"server":"s","instance":"0000000000000000","watches":[{"name":"a","format":"csv","sectioned":false,"state":"ok"},{"name":"b","format":"csv","sectioned":"no","state":"ok"}]}"#
        #expect(throws: ProtocolError(.badRequest, #"field "watches[1].sectioned" must be true or false, not a string"#)) {
            try MessageParser.serverMessage(ofLine: Array(line.utf8))
        }
    }

    @Test func negotiatesTheHighestCommonVersion() {
        #expect(ProtocolVersion.negotiate(offered: [1, 2, 3], supported: [1, 2]) == 2)
        #expect(ProtocolVersion.negotiate(offered: [2, 3], supported: [1]) == nil)
        #expect(ProtocolVersion.negotiate(offered: [], supported: [1]) == nil)
        #expect(ProtocolVersion.negotiate(offered: [1]) == 1)
    }
}
