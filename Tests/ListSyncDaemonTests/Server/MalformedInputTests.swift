import ListSyncProtocol
import NIOCore
import PropertyBased
import Testing
@testable import ListSyncDaemon

@Suite struct MalformedInputTests {
    static let tokens = [
        "{", "}", "[", "]", "\"", ":", ",", "\n", "\r", " ", "\\", "\u{0}", "é", "1", "-2.5e3", "null", "true",
        "\"type\"", "\"hello\"", "\"subscribe\"", "\"unsubscribe\"", "\"ping\"", "\"list\"", "\"id\"", "\"watch\"", "\"w\"",
        "\"since\"", "\"protocol\"", "[1]", "\"0000000000000001:0\"",
    ]

    @Test func arbitraryLinesOnlyEverGetAnswersAndNeverEndTheConnection() async {
        let garbage = Gen<String?>.element(of: Self.tokens).map { $0 ?? "" }.array(of: 0...120)
        await propertyCheck(count: 500, input: garbage, Gen.int(in: 0...1)) { tokens, greets in
            #expect(throws: Never.self) {
                let connection = try EmbeddedConnection()
                var publisher = Publisher(feed: connection.addFeed("w"))
                publisher.publish(ids: [1, 2])
                if greets == 1 {
                    try connection.send(.hello(ClientHello()))
                }
                try connection.send(tokens.joined() + "\n")
                try connection.send(#"{"type":"ping","id":"final"}"# + "\n")
                let answers = try connection.received()
                if connection.channel.isActive {
                    let last = answers.last
                    #expect(last == .reply(Reply(id: .string("final"), result: .pong)) || last?.errorCode == .helloRequired)
                } else {
                    // Only a hello that shares no version with the server closes the connection.
                    #expect(answers.contains { $0.errorCode == .unsupportedVersion })
                }
            }
        }
    }

    @Test func linesSplitAcrossReadsAndManyLinesInOneReadAreAllServed() throws {
        let connection = try EmbeddedConnection()
        for piece in [#"{"type":"hel"#, #"lo","protocol":[1]}"#, "\r\n", #"{"type":"ping","id":1}"# + "\n" + #"{"type":"ping","id":2}"# + "\n"] {
            try connection.send(piece)
        }
        let answers = try connection.received()
        #expect(answers.count == 3)
        #expect(answers.dropFirst() == [.reply(Reply(id: RequestID(1), result: .pong)), .reply(Reply(id: RequestID(2), result: .pong))])
    }
}
