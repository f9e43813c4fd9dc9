import Glibc
import ListSyncClient
import ListSyncProtocol
import ListSyncTestSupport
import NATSTransport
import Testing

@testable import ListSyncSink

/// `sink nats` at protocol version 2 (its default): its stream carries the socket's version 2
/// lines — a large changeset as its parts, one message each — and the daemon computes no
/// version 1 digest for it; a stream written at version 1 (`sink nats --protocol 1`, or a sink
/// older than version 2) is still read.
extension NATSSinkTests {
    /// The messages of the changeset at `cursor`, in stream order.
    static func changesetMessages(_ messages: [NATSMessage], at cursor: Cursor) -> [(NATSMessage, JetStreamEnvelope)] {
        messages.compactMap { message in
            JetStreamEnvelope(headers: message.headers).flatMap { $0.kind == .changeset && $0.cursor == cursor ? (message, $0) : nil }
        }
    }

    /// A changeset rewriting each of 20,000 rows goes onto the stream as its version 2 parts,
    /// one message each (no byte parts), each within the servers' `max_payload`, numbered in
    /// `ListSync-Chunk` with `ListSync-Last-Chunk` on the last; `mirror --from` with the daemon
    /// stopped equals what `listsync snapshot` printed, and so does the Python example's
    /// `--from-nats`; the daemon never noted a version 1
    /// client (`v1-client`), so it computed no version 1 digest while the sink followed.
    @Test func aLargeChangesetGoesAsItsPartsOneMessageEach() async throws {
        let maximumPayload = 512 << 10
        let servers = try await NATSServers(maximumPayload: maximumPayload)
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.bulk(rows: 20_000, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, servers, number: 0)
        let first = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        try await harness.save(ProductVersions.bulk(rows: 20_000, nameLength: 31))
        try await harness.waitForVersion(first.seq + 1)
        let final = try await Self.waitUntilPublished(harness, servers, "the large changeset")
        #expect(access(harness.path("state/products/v1-client"), F_OK) != 0, "the daemon noted a version 1 client")

        let messages = try await Self.messages(servers)
        let parts = Self.changesetMessages(messages, at: final)
        #expect(parts.count > 4, "the changeset went as several parts: \(parts.count) messages")
        #expect(parts.map(\.1.chunk) == Array(0..<parts.count), "its parts in order, ListSync-Chunk from 0")
        #expect(parts.map(\.1.lastChunk) == Array(repeating: false, count: parts.count - 1) + [true], "ListSync-Last-Chunk on the last part alone")
        #expect(parts.allSatisfy { $0.1.parts == 1 && $0.1.protocolVersion == 2 }, "one message per part, at protocol version 2")
        #expect(parts.allSatisfy { $0.0.payload.count <= maximumPayload })
        for (message, envelope) in parts {
            let line = message.payload.last == 10 ? message.payload.dropLast() : message.payload[...]
            guard case .changesetPart(let part) = try MessageParser.serverMessage(ofLine: line) else {
                Issue.record("message \(message.streamSequence) is not a changeset part")
                continue
            }
            #expect(part.part == envelope.chunk && part.last == envelope.lastChunk && part.cursor == final)
            #expect(message.headers["Nats-Msg-Id"] == "products/\(final)/changeset/\(part.part)/1")
        }
        try Self.audit(messages, endingAt: final)

        let snapshot = try await harness.run("snapshot", ["products", "--output-format", "csv"])
        #expect(snapshot.status == 0, "\(snapshot.error)")
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("remote.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(readFile(harness.path("remote.csv")) == snapshot.output, "the mirror is what `listsync snapshot` printed")
        // The Python example puts the parts back together and checks the version 2 digest too.
        let python = try harness.process("/usr/bin/env", [
            "python3", Self.pythonMirror, "products", "--from-nats", servers.urls, "--output", harness.path("python.json"), "--once",
        ])
        #expect(try await python.waitForExit() == 0, "\(python.errorOutput)")
        #expect(harness.document("python.json") == harness.document(harness.watches[0].file), "\(python.errorOutput)")
    }

    /// A sink killed after publishing some parts of a large changeset is completed by the next
    /// sink from the part after the last one in the stream: no part twice, none missing, and the
    /// stream's lines rebuild the file. (The dead sink's parts are published here by the test, as
    /// the sink cuts them: `subscribe --since` prints the same parts.)
    @Test func aChangesetCutShortAfterSomePartsIsCompletedFromTheNextPart() async throws {
        let servers = try await NATSServers()
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.bulk(rows: 20_000, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        var sink = try Self.startSink(harness, servers, number: 0)
        let first = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        try await harness.save(ProductVersions.bulk(rows: 20_000, nameLength: 31))
        let cursor = Cursor(epoch: first.epoch, seq: first.seq + 1)
        try await harness.waitForVersion(cursor.seq)

        // The parts as a version 2 subscriber prints them, and the first two published as the
        // killed sink would have: each part in one message, expecting the subject's last sequence.
        let subscriber = try harness.client("subscribe", ["products", "--format", "ndjson", "--since", "\(first)"])
        try await eventually("the subscriber printed the last part", timeout: .seconds(60)) {
            subscriber.output.contains("\"cursor\":\"\(cursor)\"") && subscriber.output.contains("\"last\":true")
        }
        subscriber.send(SIGTERM)
        let lines = subscriber.output.split(separator: "\n").filter { $0.contains("\"type\":\"changeset\"") }.map { Array($0.utf8) + [10] }
        #expect(lines.count > 4, "the changeset is in parts: \(lines.count)")
        try await NATSTransportTests.withConnection(servers) { connection in
            let publisher = JetStreamPublisher(connection: connection, stream: Self.stream, subject: Self.subject, watch: "products")
            let last = try #require(try connection.lastMessage(in: Self.stream, subject: Self.subject))
            var position = JetStreamPosition(sequence: last.streamSequence, last: JetStreamEnvelope(headers: last.headers))
            var none: UInt64?
            for (index, line) in lines.prefix(2).enumerated() {
                let envelope = JetStreamPublisher.Line(
                    kind: .changeset, cursor: cursor, protocolVersion: 2, chunk: index, lastChunk: false, after: position.sequence,
                    layout: position.last?.layout)
                try publisher.publish(line, as: envelope, position: &position, snapshotStart: &none)
            }
        }
        sink = try Self.startSink(harness, servers, number: 1)
        let final = try await Self.waitUntilPublished(harness, servers, "the changeset completed")
        #expect(final == cursor)
        let messages = try await Self.messages(servers)
        let parts = Self.changesetMessages(messages, at: cursor)
        #expect(parts.map(\.1.chunk) == Array(0..<lines.count), "each part once, in order: \(parts.map(\.1.chunk))")
        #expect(zip(parts, lines).allSatisfy { $0.0.0.payload == $0.1 }, "the parts the subscriber printed")
        #expect(!readFile(harness.path("sink-1.err")).contains("already in the stream"), "no part published again")
        try Self.audit(messages, endingAt: final)
        try await Self.stopAndMirrorTheStream(harness, servers, sink: sink)
    }

    /// A stream written at protocol version 1 (`sink nats --protocol 1`, as every sink before
    /// version 2 wrote it: `ListSync-Protocol: 1`, a large changeset one line in byte parts) is
    /// still read: `mirror --from` checks its version 1 digests and equals the file, and
    /// `subscribe --from` prints the version 1 lines a socket subscriber with `--protocol 1` printed.
    @Test func aVersion1StreamIsStillRead() async throws {
        let servers = try await NATSServers(maximumPayload: 512 << 10)
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.bulk(rows: 20_000, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, servers, number: 0, extra: ["--protocol", "1"])
        let first = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        let socket = try harness.client("subscribe", ["products", "--format", "ndjson", "--protocol", "1", "--since", "\(first)"])
        try await harness.save(ProductVersions.bulk(rows: 20_000, nameLength: 31))
        try await harness.waitForVersion(first.seq + 1)
        try await harness.save(ProductVersions.bulk(rows: 20_001, nameLength: 31))
        try await harness.waitForVersion(first.seq + 2)
        let final = try await Self.waitUntilPublished(harness, servers, "two changesets")
        let expected = try await Self.lines(of: socket, reaching: final, "the socket subscriber with --protocol 1")
        socket.send(SIGTERM)

        let messages = try await Self.messages(servers)
        try Self.audit(messages, endingAt: final, versions: [1])
        let large = Self.changesetMessages(messages, at: Cursor(epoch: final.epoch, seq: first.seq + 1))
        #expect(large.count > 1 && large.allSatisfy { $0.1.parts == large.count && $0.0.headers["ListSync-Chunk"] == nil },
                "at version 1 the large changeset is one line in byte parts: \(large.map(\.1))")
        try await Self.stopAndMirrorTheStream(harness, servers, sink: sink)
        let nats = try harness.client("subscribe", ["products", "--format", "ndjson", "--from", servers.urls, "--since", "\(first)"])
        #expect(try await Self.lines(of: nats, reaching: final, "subscribe --from") == expected, "\(nats.errorOutput)")
        nats.send(SIGTERM)
    }
}
