import Glibc
import ListSyncProtocol
import ListSyncTestSupport
import NATSTransport
import Testing

@testable import ListSyncSink

/// What a follower and the sink do with a stream that is not what they expect: a stream that
/// does not exist is an error naming it (not an empty list), and a message the sink cannot use
/// is said, with its stream sequence.
extension NATSSinkTests {
    /// `mirror --from` and `snapshot --from` against servers without the watch's stream exit 1,
    /// naming the stream and the servers, and write no mirror.
    @Test func aStreamThatDoesNotExistIsAnErrorNotAnEmptyList() async throws {
        let servers = try await NATSServers()
        let harness = try EndToEndHarness()
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("mirror.csv")])
        #expect(mirror.status == 1, "\(mirror.error)")
        #expect(mirror.error.contains("no stream \(Self.stream)") && mirror.error.contains(servers.nodes[0].url), "\(mirror.error)")
        #expect(access(harness.path("mirror.csv"), F_OK) != 0, "no mirror of an empty list")
        let snapshot = try await harness.run("snapshot", ["products", "--from", servers.urls])
        #expect(snapshot.status == 1, "\(snapshot.error)")
        #expect(snapshot.error.contains("no stream \(Self.stream)"), "\(snapshot.error)")
        let other = try await harness.run("snapshot", ["products", "--from", servers.urls, "--stream", "ELSEWHERE"])
        #expect(other.status == 1 && other.error.contains("no stream ELSEWHERE"), "\(other.error)")
    }

    /// A last message that does not decode is reported by the sink with its stream sequence, and
    /// so is the list it could not rebuild; the sink then publishes the daemon's snapshot.
    @Test func theSinkReportsAMessageItCannotUse() async throws {
        let servers = try await NATSServers()
        let envelope = JetStreamEnvelope(
            watch: "products", cursor: Cursor(epoch: Epoch(rawValue: 1), seq: 5), kind: .snapshot, part: 1, parts: 1, reset: false, after: 0)
        let (stream, subject) = (Self.stream, Self.subject)
        try await NATSTransportTests.withConnection(servers) { connection in
            try connection.ensureStream(NATSStreamSettings(name: stream, subjects: [subject]))
            _ = try connection.publish(
                Array("not a protocol line".utf8)[...], to: subject, of: stream, messageID: envelope.messageID, expectedLastSubjectSequence: 0,
                headers: envelope.headers)
        }
        let harness = try await EndToEndHarness.running()
        let sink = try Self.startSink(harness, servers, number: 0)
        _ = try await Self.waitUntilPublished(harness, servers, "the daemon's snapshot after the bad message")
        let log = readFile(harness.path("sink-0.err"))
        #expect(log.contains("message 1 (snapshot \(envelope.cursor)) does not decode"), "\(log)")
        #expect(log.contains("do not rebuild the list at its last cursor \(envelope.cursor)"), "\(log)")
        sink.send(SIGKILL)
    }
}
