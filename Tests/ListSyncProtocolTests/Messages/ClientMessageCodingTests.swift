import ListFormats
import ListSyncProtocol
import Testing

@Suite struct ClientMessageCodingTests {
    static let messages: [ClientMessage] = [
        .hello(ClientHello(protocols: [1], client: "listsync 0.1")),
        .hello(ClientHello(protocols: [3, 1, 2], client: nil)),
        .hello(ClientHello(protocols: [], client: "a \"quoted\"\nname\u{1}")),
        .list(id: RequestID(1)),
        .list(id: .string("req-\u{e9}")),
        .subscribe(id: RequestID(2), watch: "products", since: nil),
        .subscribe(id: .number("1e400"), watch: "products", since: Cursor(epoch: Epoch(rawValue: 0xabc), seq: 10)),
        .unsubscribe(id: .number("-7.25"), watch: "a.b_c-d"),
        .ping(id: RequestID(0)),
        .metrics(id: RequestID(5)),
    ]

    @Test(arguments: messages)
    func roundTrips(_ message: ClientMessage) throws {
        let line = message.encoded()
        #expect(try Lines.decodeClient(line) == message)
    }

    @Test func escapesEveryCharacterThatNeedsIt() throws {
        let text = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self) + "é€😀\u{2028}"
        let line = ClientMessage.hello(ClientHello(protocols: [1], client: text)).encoded()
        #expect(line.filter { $0 < 0x20 } == [UInt8(ascii: "\n")], "only the line end is a control byte")
        #expect(try Lines.decodeClient(line) == .hello(ClientHello(protocols: [1], client: text)))
    }

    @Test func encodesTheDocumentedShape() {
        let line = ClientMessage.subscribe(id: RequestID(2), watch: "products", since: Cursor("5f0c2a4e19b7d3a8:10")).encoded()
        #expect(String(decoding: line, as: UTF8.self) == #"{"type":"subscribe","id":2,"watch":"products","since":"5f0c2a4e19b7d3a8:10"}"# + "\n")
    }

    @Test func encodesTheMetricsRequestAsDocumented() {
        #expect(String(decoding: ClientMessage.metrics(id: RequestID(5)).encoded(), as: UTF8.self) == #"{"type":"metrics","id":5}"# + "\n")
    }

    @Test func ignoresUnknownFieldsAndTreatsNullAsAbsent() throws {
        let decoded = Lines.client(#"{"extra":{"deep":[1,2]},"type":"subscribe","id":"x","watch":"w","since":null,"later":true}"#)
        #expect(try decoded.get() == .subscribe(id: .string("x"), watch: "w", since: nil))
    }

    @Test func skipsBlankLines() throws {
        #expect(try Lines.client("").get() == nil)
        #expect(try Lines.client("   \t").get() == nil)
    }

    @Test func reportsBadJSONWithItsColumn() {
        #expect(Lines.client(#"{"type":"ping","id":1,}"#).failure == ProtocolError(.badJSON, "trailing comma at column 22 (byte 21)"))
        #expect(Lines.client(#"{"type":"ping","id":1}{}"#).failure?.code == .badJSON)
        #expect(Lines.client(#"{"type":"ping","type":"list","id":1}"#).failure?.code == .badJSON)
        #expect(Lines.client("{\"type\":\"ping\",\"id\":1,\"x\":\"\u{1}\"}").failure?.code == .badJSON)
    }

    @Test(arguments: [
        (#"[1,2]"#, "a message must be a JSON object, not an array", nil),
        (#""hello""#, "a message must be a JSON object, not a string", nil),
        (#"{"id":1}"#, #"missing field "type""#, RequestID(1)),
        (#"{"type":7,"id":1}"#, #"field "type" must be a string, not a number"#, RequestID(1)),
        (#"{"type":"list"}"#, #"missing field "id" (every request but hello has one)"#, nil),
        (#"{"type":"list","id":[1]}"#, #"field "id" must be a number or a string, not an array"#, nil),
        (#"{"type":"subscribe","id":3}"#, #"missing field "watch""#, RequestID(3)),
        (#"{"type":"subscribe","id":3,"watch":true}"#, #"field "watch" must be a string, not a boolean"#, RequestID(3)),
        (#"{"type":"unsubscribe","id":"u"}"#, #"missing field "watch""#, .string("u")),
        (#"{"type":"hello","protocol":1}"#, #"field "protocol" must be an array, not a number"#, nil),
        (#"{"type":"hello","protocol":["1"]}"#, #"field "protocol[0]" must be an integer, not "1""#, nil),
        (#"{"type":"hello","protocol":[1.5]}"#, #"field "protocol[0]" must be an integer, not 1.5"#, nil),
        (#"{"type":"hello","protocol":[1],"client":2}"#, #"field "client" must be a string, not a number"#, nil),
    ] as [(String, String, RequestID?)])
    func reportsBadRequestsPrecisely(_ line: String, _ message: String, _ id: RequestID?) {
        let error = Lines.client(line).failure
        #expect(error == ProtocolError(.badRequest, message, requestID: id))
    }

    @Test func reportsUnknownTypesWithTheRequestID() {
        #expect(Lines.client(#"{"type":"frobnicate","id":9}"#).failure == ProtocolError(.unknownType, #"unknown message type "frobnicate""#, requestID: RequestID(9)))
    }

    @Test(arguments: ["", "nope", "5f0c2a4e19b7d3a8", "5f0c2a4e19b7d3a8:x"])
    func reportsBadCursors(_ since: String) {
        let error = Lines.client(#"{"type":"subscribe","id":4,"watch":"w","since":"\#(since)"}"#).failure
        #expect(error?.code == .badCursor)
        #expect(error?.requestID == RequestID(4))
    }

    @Test func reportsACursorOfTheWrongTypeAsABadRequest() {
        #expect(Lines.client(#"{"type":"subscribe","id":4,"watch":"w","since":12}"#).failure?.code == .badRequest)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
