import Foundation
import Glibc
import ListSyncTestSupport
import NATSTransport
import Testing

@testable import ListSyncSink

/// A reader of the stream (`--from`) is sent a bounded batch at a time, not the stream as fast
/// as the server can send it, and writes a snapshot as its chunks arrive, before the last one.
extension NATSSinkTests {
    /// A stream beside the watch's, for a list published once by a sink and read by hand.
    static let scratchStream = "SCRATCH"
    /// The subject of ``scratchStream``.
    static let scratchSubject = "scratch.products"

    /// The products watch without sections: its CSV is written as it streams (a sectioned
    /// list's CSV is written once complete, its section column depending on every record).
    static let unsectioned = EndToEndHarness.Watch(sectionBy: nil)

    /// Starts a sink of the harness's watch into ``scratchStream`` (with `extra` arguments), waits
    /// until the stream's last message completes a snapshot or changeset, and kills the sink.
    static func publishToScratch(_ harness: EndToEndHarness, _ servers: NATSServers, number: Int, extra: [String] = []) async throws {
        let scratch = try Self.startSink(
            harness, servers, number: number, extra: ["--stream", Self.scratchStream, "--subject", Self.scratchSubject] + extra)
        do {
            try await eventually("the scratch stream holds a snapshot", timeout: .seconds(60)) {
                // Not before the sink has made the stream: nats-server 2.9.10 can crash on a
                // last-message request for a stream being created (see `waitUntilPublished`).
                let made = try? await NATSTransportTests.withConnection(servers) { try $0.streamState(Self.scratchStream) }
                guard made.flatMap({ $0 }) != nil else { return false }
                let last = try? await NATSTransportTests.withConnection(servers) {
                    try $0.lastMessage(in: Self.scratchStream, subject: Self.scratchSubject)
                }
                return last.flatMap { $0 }.flatMap { JetStreamEnvelope(headers: $0.headers) }?.completesCursor ?? false
            }
        } catch {
            // What the sink and the server said, for the next reader of a failure.
            let sinkLogs = ((try? FileManager.default.contentsOfDirectory(atPath: harness.directory)) ?? [])
                .filter { $0.hasPrefix("sink") }.sorted().map { "\($0): \(String(readFile(harness.path($0)).suffix(2000)))" }
            throw TestFailure("\(error)\n\(sinkLogs.joined(separator: "\n"))\nnats-server: \(String(servers.logs.suffix(2000)))")
        }
        scratch.send(SIGKILL)
        _ = try await scratch.waitForExit()
    }

    /// Publishes `messages` (read from another stream) to the watch's subject one after the
    /// other, with their ListSync headers, as a sink publishes them.
    static func republish(_ messages: some Collection<NATSMessage>, _ servers: NATSServers) async throws {
        let messages = Array(messages)
        try await NATSTransportTests.withConnection(servers) { connection in
            try connection.ensureStream(NATSStreamSettings(name: Self.stream, subjects: [Self.subject], replicas: 1))
            var sequence = try connection.lastMessage(in: Self.stream, subject: Self.subject)?.streamSequence ?? 0
            for message in messages {
                let headers = message.headers.filter { $0.key.hasPrefix("ListSync-") }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                sequence = try connection.publish(
                    message.payload[...], to: Self.subject, of: Self.stream, messageID: "republished/\(message.streamSequence)",
                    expectedLastSubjectSequence: sequence, headers: headers
                ).sequence
            }
        }
    }

    /// `mirror --from` following a stream whose snapshot is being published (its chunks but the
    /// last one published by hand): the records of the chunks published so far are in its
    /// temporary file, in order, and FILE is not written; once the last chunk is published, FILE
    /// is what `listsync snapshot` prints and the temporary file is gone.
    @Test func aMirrorFromTheStreamWritesASnapshotBeforeItsLastChunkArrives() async throws {
        let servers = try await NATSServers()
        let harness = try EndToEndHarness(watches: [Self.unsectioned])
        try FileContent.write(ProductVersions.bulk(rows: 20_000, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        try await Self.publishToScratch(harness, servers, number: 0)
        let expected = try await harness.run("snapshot", ["products", "--output-format", "csv"])
        #expect(expected.status == 0, "\(expected.error)")
        try await harness.stopDaemon()
        let chunks = try await Self.messages(servers, stream: Self.scratchStream, subject: Self.scratchSubject)
        let envelopes = Self.envelopes(chunks)
        #expect(chunks.count > 5 && envelopes.count == chunks.count && envelopes.allSatisfy { $0.kind == .snapshot }, "one snapshot in chunks: \(envelopes)")
        #expect(envelopes.last?.lastChunk == true, "it ends with its last chunk")

        try await Self.republish(chunks.dropLast(), servers)
        let output = harness.path("mirror.csv")
        let mirror = try harness.client("mirror", ["products", "--from", servers.urls, "--output", output])
        let temporary = harness.path(".mirror.csv.listsync-\(mirror.pid)")
        do {
            try await eventually("the mirror writes the chunks published so far to its temporary file", timeout: .seconds(60)) {
                let written = readFile(temporary)
                return written.utf8.count >= expected.output.utf8.count / 2 && expected.output.hasPrefix(written)
            }
        } catch {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: harness.directory)) ?? []
            throw TestFailure("\(error); \(readFile(temporary).utf8.count) of \(expected.output.utf8.count) bytes written; files: \(files); the mirror said: \(mirror.errorOutput)")
        }
        #expect(access(output, F_OK) != 0, "nothing is committed before the last chunk")
        #expect(mirror.exitStatus == nil, "the mirror follows on: \(mirror.errorOutput)")

        try await Self.republish(chunks.suffix(1), servers)
        try await eventually("the mirror commits the snapshot once its last chunk arrives", timeout: .seconds(60)) {
            readFile(output) == expected.output
        }
        #expect(access(temporary, F_OK) != 0, "the temporary file became FILE")
        mirror.send(SIGTERM)
        _ = try await mirror.waitForExit()
    }

    /// `snapshot --from` of a stream whose snapshot is 28 MB, the reader slower than the server
    /// (a debug build decoding every chunk): its peak memory grows, against a snapshot of a list
    /// a twelfth the size, by less than a quarter of what the snapshot grows on the stream, and
    /// it prints what `listsync snapshot` prints. The stream is fetched a bounded batch at a time
    /// (seen: 2.4–3.0 MB of growth, the records' hashes and a batch). With an ordered push
    /// consumer the server sent the stream ahead of the reader, held in nats.c's subscription
    /// (seen: 15.4 MB, 0.57× the snapshot's growth; on a 1M-row list, 200 MB on the stream, the
    /// reader failed with nats.c's "Slow Consumer, messages dropped" once 64 MiB were held).
    @Test func aSnapshotReaderIsSentTheStreamABatchAtATime() async throws {
        let servers = try await NATSServers()
        let harness = try EndToEndHarness(watches: [Self.unsectioned])
        try FileContent.write(ProductVersions.bulk(rows: 5_000, nameLength: 400), to: harness.watched)
        try await harness.startDaemon()
        try await Self.publishToScratch(harness, servers, number: 0)
        let first = try #require(try await harness.watchSummaries().first?.cursor)
        try await harness.save(ProductVersions.bulk(rows: 60_000, nameLength: 400))
        try await harness.waitForVersion(first.seq + 1, timeout: .seconds(60))
        let sink = try Self.startSink(harness, servers, number: 1)
        let cursor = try await Self.waitUntilPublished(harness, servers, "the large list")
        // A 28 MB snapshot read by a debug build: on a machine loaded by the rest of the suite it
        // has taken more than 20 s.
        let expected = try await harness.run("snapshot", ["products", "--output-format", "csv"], timeout: .seconds(180))
        #expect(expected.status == 0, "\(expected.error)")
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        try await harness.stopDaemon()

        func snapshotBytes(_ messages: [NATSMessage]) -> Int {
            messages.filter { JetStreamEnvelope(headers: $0.headers)?.kind == .snapshot }.reduce(0) { $0 + $1.payload.count }
        }
        let large = try await Self.messages(servers)
        #expect(Self.envelopes(large).allSatisfy { $0.kind == .snapshot && $0.cursor == cursor }, "the large list's snapshot alone")
        let growth = snapshotBytes(large) - snapshotBytes(try await Self.messages(servers, stream: Self.scratchStream, subject: Self.scratchSubject))

        let small = try await harness.runMeasuringPeakMemory(
            "snapshot", ["products", "--output-format", "csv", "--from", servers.urls, "--stream", Self.scratchStream, "--subject", Self.scratchSubject])
        #expect(small.status == 0, "\(small.error)")
        let read = try await harness.runMeasuringPeakMemory("snapshot", ["products", "--output-format", "csv", "--from", servers.urls])
        #expect(read.status == 0, "\(read.error)")
        #expect(String(decoding: read.output, as: UTF8.self) == expected.output, "snapshot --from prints what snapshot prints over the socket")
        #expect(
            (read.peakKiB - small.peakKiB) * 1024 < growth / 4,
            "the reader's peak: \(read.peakKiB) KiB, \(small.peakKiB) KiB for the small list; the snapshot grew by \(growth / 1024) KiB on the stream")
    }
}
