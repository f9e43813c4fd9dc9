import CNATS
import ListSyncSink
import ListSyncTestSupport
import Testing

@testable import NATSTransport

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
            let first = try connection.publish(Array("one".utf8)[...], to: "t.a", of: "T", messageID: "1", expectedLastSubjectSequence: 0, headers: [("H", "v")])
            #expect(first.sequence == 1 && !first.duplicate)
            #expect(throws: NATSError.self) {
                try connection.publish(Array("again".utf8)[...], to: "t.a", of: "T", messageID: "1b", expectedLastSubjectSequence: 0, headers: [])
            }
            // Per subject: another subject's messages do not count.
            let other = try connection.publish(Array("b".utf8)[...], to: "t.b", of: "T", messageID: "b1", expectedLastSubjectSequence: 0, headers: [])
            #expect(other.sequence == 2)
            do {
                _ = try connection.publish(Array("stale".utf8)[...], to: "t.a", of: "T", messageID: "2", expectedLastSubjectSequence: 2, headers: [])
                Issue.record("a publish expecting a stale sequence was stored")
            } catch let error as NATSError {
                #expect(error.isWrongLastSequence, "\(error)")
            }
            let second = try connection.publish(Array("two".utf8)[...], to: "t.a", of: "T", messageID: "2", expectedLastSubjectSequence: 1, headers: [])
            #expect(second.sequence == 3)
            // The same message ID again is dropped, answered with the first one's sequence.
            let repeated = try connection.publish(Array("two".utf8)[...], to: "t.a", of: "T", messageID: "2", expectedLastSubjectSequence: 3, headers: [])
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

    /// A failed publish names the stream, the subject, the message ID and the sequence it
    /// expected; a failure that sets no text of its own is described by its own status, not by
    /// the text an earlier call left on the thread; a stream that does not exist is not a
    /// subject without messages.
    @Test func errorsNameWhatFailedAndNeverAnEarlierCallsText() async throws {
        let servers = try await NATSServers()
        let url = servers.nodes[0].url
        try await Self.withConnection(servers) { connection in
            try connection.ensureStream(NATSStreamSettings(name: "T", subjects: ["t.a", "t.b"]))
            _ = try connection.publish(Array("one".utf8)[...], to: "t.a", of: "T", messageID: "m1", expectedLastSubjectSequence: 0, headers: [])
            do {
                _ = try connection.publish(Array("two".utf8)[...], to: "t.a", of: "T", messageID: "m2", expectedLastSubjectSequence: 7, headers: [])
                Issue.record("a publish expecting a wrong sequence was stored")
            } catch let error as NATSError {
                #expect(error.isWrongLastSequence, "\(error)")
                let text = "\(error)"
                #expect(text.contains("m2") && text.contains("t.a") && text.contains("stream T") && text.contains("last sequence 7"), "\(text)")
            }
            // The publish left its text on this thread: another status must not take it.
            let timeout = NATSError("wait for something", status: NATS_TIMEOUT)
            #expect(timeout.text == String(cString: natsStatus_GetText(NATS_TIMEOUT)), "\(timeout)")
            do {
                _ = try connection.lastMessage(in: "MISSING", subject: "t.a")
                Issue.record("a stream that does not exist read as an empty subject")
            } catch let error as NATSError {
                #expect(error.isStreamNotFound, "\(error)")
                #expect("\(error)".contains("MISSING") && "\(error)".contains(url), "\(error)")
            }
            #expect(try connection.lastMessage(in: "T", subject: "t.b") == nil, "a subject without messages has no last message")
        }
    }

    /// ``JetStreamParts/headerBytes(_:)`` is what the server counts: a message whose headers and
    /// payload make exactly `max_payload` is stored, one byte more is refused.
    @Test func headerBytesAreWhatTheServerCounts() async throws {
        let servers = try await NATSServers()
        try await Self.withConnection(servers) { connection in
            try connection.ensureStream(NATSStreamSettings(name: "P", subjects: ["p"]))
            let headers = [("ListSync-Watch", String(repeating: "w", count: 1500)), ("H", "v")]
            let all = headers + [("Nats-Msg-Id", "id-1"), ("Nats-Expected-Last-Subject-Sequence", "0")]
            let room = connection.maximumPayload - JetStreamParts.headerBytes(all)
            let stored = try connection.publish(
                [UInt8](repeating: 65, count: room)[...], to: "p", of: "P", messageID: "id-1", expectedLastSubjectSequence: 0, headers: headers)
            #expect(stored.sequence == 1)
            #expect(throws: NATSError.self) {
                try connection.publish(
                    [UInt8](repeating: 65, count: room + 1)[...], to: "p", of: "P", messageID: "id-2", expectedLastSubjectSequence: 1, headers: headers)
            }
        }
    }
}
