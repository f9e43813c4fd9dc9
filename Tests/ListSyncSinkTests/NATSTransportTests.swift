import ListSyncTestSupport
import NATSTransport
import Testing

/// The nats.c wrapper against a real `nats-server`: streams, the expected last subject sequence
/// and message IDs behave as the sink relies on.
@Suite(
    .serialized, .timeLimit(.minutes(2)),
    .enabled(if: NATSServers.isInstalled, "nats-server is not installed (scripts/bootstrap installs it): the NATS tests are skipped"))
struct NATSTransportTests {
    /// Runs `body` with a connection to `servers` on a thread of its own (nats.c blocks).
    static func withConnection<Value: Sendable>(
        _ servers: NATSServers, _ body: @escaping @Sendable (NATSConnection) throws -> Value
    ) async throws -> Value {
        let urls = servers.nodes.map(\.url)
        let thread = BlockingThread { try body(NATSConnection(.init(servers: urls, name: "test"))) }
        try await eventually("the NATS calls end", timeout: .seconds(60)) { thread.isFinished }
        return try await thread.value()
    }

    @Test func expectedLastSubjectSequenceAndMessageIDs() async throws {
        let servers = try await NATSServers()
        try await Self.withConnection(servers) { connection in
            let state = try connection.ensureStream(NATSStreamSettings(name: "T", subjects: ["t.a", "t.b"]))
            #expect(state.lastSequence == 0 && state.subjects == ["t.a", "t.b"])
            // Expecting 0: only while the subject has no message.
            let first = try connection.publish(Array("one".utf8)[...], to: "t.a", messageID: "1", expectedLastSubjectSequence: 0, headers: [("H", "v")])
            #expect(first.sequence == 1 && !first.duplicate)
            #expect(throws: NATSError.self) {
                try connection.publish(Array("again".utf8)[...], to: "t.a", messageID: "1b", expectedLastSubjectSequence: 0, headers: [])
            }
            // Per subject: another subject's messages do not count.
            let other = try connection.publish(Array("b".utf8)[...], to: "t.b", messageID: "b1", expectedLastSubjectSequence: 0, headers: [])
            #expect(other.sequence == 2)
            do {
                _ = try connection.publish(Array("stale".utf8)[...], to: "t.a", messageID: "2", expectedLastSubjectSequence: 2, headers: [])
                Issue.record("a publish expecting a stale sequence was stored")
            } catch let error as NATSError {
                #expect(error.isWrongLastSequence, "\(error)")
            }
            let second = try connection.publish(Array("two".utf8)[...], to: "t.a", messageID: "2", expectedLastSubjectSequence: 1, headers: [])
            #expect(second.sequence == 3)
            // The same message ID again is dropped, answered with the first one's sequence.
            let repeated = try connection.publish(Array("two".utf8)[...], to: "t.a", messageID: "2", expectedLastSubjectSequence: 3, headers: [])
            #expect(repeated.duplicate && repeated.sequence == 3)
            let last = try #require(try connection.lastMessage(in: "T", subject: "t.a"))
            #expect(last.streamSequence == 3 && last.payload == Array("two".utf8) && last.headers["Nats-Msg-Id"] == "2")
            #expect(try connection.lastMessage(in: "T", subject: "t.c") == nil)
            #expect(try connection.streamState("missing") == nil)
            // An ordered consumer from a sequence, one subject.
            let subscription = try NATSOrderedSubscription(connection: connection, stream: "T", subject: "t.a", from: 2)
            let read = try #require(try subscription.next(timeoutMilliseconds: 5000))
            #expect(read.streamSequence == 3 && read.pending == 0 && read.headers["H"] == nil)
            #expect(try subscription.next(timeoutMilliseconds: 200) == nil)
        }
    }
}
