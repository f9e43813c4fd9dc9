import Foundation
import Glibc
import ListSyncClient
import ListSyncProtocol
import ListSyncTestSupport
import NATSTransport
import Testing

@testable import ListSyncSink

/// A snapshot goes onto the stream chunk by chunk as the daemon sends it (and as the sink makes
/// it again), never whole in memory; `--max-age` trims an idle stream; the first publication on
/// a cluster that has just started waits for no request timeout.
extension NATSSinkTests {
    /// The envelopes of `messages` (all ListSync messages).
    static func envelopes(_ messages: [NATSMessage]) -> [JetStreamEnvelope] {
        messages.compactMap { JetStreamEnvelope(headers: $0.headers) }
    }

    /// A list of 100k rows (a snapshot of about 14 MB): each snapshot is a run of chunks, one
    /// message each (`ListSync-Chunk` 0, 1, …, `ListSync-Last-Chunk` on the last), and the
    /// sink's peak memory while it publishes the list again (`--snapshot-every 1`, after a
    /// one-row edit) grows by less than a quarter of the snapshot's size. Publishing the
    /// snapshot as one line grew it by about twice that size (25 MB for 14 MB). A late
    /// `mirror --from` equals the file.
    @Test func aSnapshotIsPublishedChunkByChunkInBoundedMemory() async throws {
        let servers = try await NATSServers()
        let harness = try EndToEndHarness()
        let rows = 100_000
        try FileContent.write(ProductVersions.bulk(rows: rows, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, servers, number: 0, extra: ["--snapshot-every", "1"])
        let first = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        let before = try sink.memoryKiB("VmRSS")
        try await harness.save(ProductVersions.bulk(rows: rows + 1, nameLength: 30))
        try await harness.waitForVersion(first.seq + 1)
        let final = try await Self.waitUntilPublished(harness, servers, "the changeset")
        try await eventually("the snapshot after the changeset is published", timeout: .seconds(60)) {
            let last = try await Self.lastEnvelope(servers)
            return last?.kind == .snapshot && last?.cursor == final && last?.completesCursor == true
        }
        let messages = try await Self.messages(servers)
        let envelopes = Self.envelopes(messages)
        let peak = try sink.memoryKiB("VmHWM")

        for cursor in [first, final] {
            let snapshot = zip(envelopes, messages).filter { $0.0.kind == .snapshot && $0.0.cursor == cursor }
            let chunks = snapshot.map(\.0.chunk)
            #expect(chunks.count > 10 && chunks == Array(0..<chunks.count), "the snapshot at \(cursor) in chunks, in order: \(chunks)")
            #expect(snapshot.allSatisfy { $0.0.parts == 1 && $0.1.payload.count < 512 << 10 }, "a chunk per message")
            #expect(snapshot.map(\.0.lastChunk) == chunks.map { $0 == chunks.count - 1 }, "only the last chunk is marked last")
            let start = try #require(snapshot.first?.1.streamSequence)
            #expect(snapshot.last.map { $0.0.latestSnapshot(at: $0.1.streamSequence) } == start, "the last chunk names the first")
        }
        let size = messages.filter { JetStreamEnvelope(headers: $0.headers).map { $0.kind == .snapshot && $0.cursor == final } ?? false }
            .reduce(0) { $0 + $1.payload.count }
        #expect(
            (peak - before) * 1024 < size / 4,
            "publishing the snapshot again grew the sink's peak from \(before) KiB to \(peak) KiB, for a snapshot of \(size / 1024) KiB")
        try Self.audit(messages, endingAt: final)

        try await Self.stopAndMirrorTheStream(harness, servers, sink: sink)
    }

    /// `--max-age 1` on a stream nothing more is published to: once its first message is older
    /// than a second, the sink's timer purges the subject below its latest complete snapshot,
    /// which stays with the changesets after it; a late mirror still rebuilds the list.
    @Test func anIdleStreamIsTrimmedToItsMaximumAge() async throws {
        let servers = try await NATSServers()
        var generator = SplitMix(seed: 2103)
        let header = SinkCrashTests.headers[0]
        let harness = try await Self.harnessWithRandomList(header, using: &generator)
        let sink = try Self.startSink(harness, servers, number: 0, extra: ["--snapshot-every", "2", "--max-age", "1"])
        var cursor = try await Self.waitUntilPublished(harness, servers, "the first version")
        // Three versions at once: snapshot, changeset, changeset and snapshot, changeset; the
        // publishes come within the second, so they purge nothing.
        for _ in 1...3 {
            try await harness.save(SinkCrashTests.version(header, using: &generator))
            try await harness.waitForVersion(cursor.seq + 1)
            cursor = try await Self.waitUntilPublished(harness, servers, "version \(cursor.seq + 1)")
        }
        let latest = try #require(try await Self.lastEnvelope(servers)?.latestSnapshot)
        #expect(latest > 1, "a snapshot after the first")
        try await eventually("the idle stream is purged below its latest snapshot", timeout: .seconds(20)) {
            let state = try await NATSTransportTests.withConnection(servers) { try $0.streamState(Self.stream) }
            return state?.firstSequence == latest
        }
        let messages = try await Self.messages(servers)
        let first = try #require(Self.envelopes(messages).first)
        #expect(first.kind == .snapshot && first.chunk == 0 && first.part == 1, "the stream starts with the latest snapshot")
        try Self.audit(messages, endingAt: cursor)
        try await Self.expectLateMirrorEqualsTheSnapshot(harness, servers, sink: sink)
    }

    /// A sink started together with a 3-node cluster (before it has elected its JetStream
    /// leader, which answers no request until then) publishes its first snapshot within 3 s
    /// of its start: its stream lookups are asked again each second rather than waiting the
    /// 5 s request timeout.
    @Test func theFirstPublicationOnAFreshClusterWaitsForNoRequestTimeout() async throws {
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.bulk(rows: 10, nameLength: 10), to: harness.watched)
        try await harness.startDaemon()
        let servers = try await NATSServers(count: 3)
        let start = ContinuousClock.now
        let sink = try Self.startSink(harness, servers, number: 0, extra: ["--replicas", "3"])
        try await eventually("the sink publishes its first snapshot", timeout: .seconds(60)) {
            readFile(harness.path("sink-0.err")).contains("published the snapshot")
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(3), "the first snapshot was published \(elapsed) after the sink started: \(readFile(harness.path("sink-0.err")))")
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
    }
}

extension NATSSinkTests {
    /// A stream written before chunks — each snapshot one line, chunk 0 and last, cut into byte
    /// parts, without `ListSync-Chunk` — is still read (`mirror --from` equals the file),
    /// resumed and extended by today's sink (its changesets follow the old snapshot, at protocol
    /// version 2 after the old snapshot's version 1: a reader checks each with its own digest).
    @Test func aStreamOfWholeSnapshotsInBytePartsIsStillRead() async throws {
        let servers = try await NATSServers(maximumPayload: 4096)
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.bulk(rows: 200, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        // Today's sink into a scratch stream, for the list a reader rebuilds from it: at protocol
        // version 1, as the older sink published it.
        try await Self.publishToScratch(harness, servers, number: 0, extra: ["--protocol", "1"])
        let (line, cursor, layout, maximumPayload) = try await NATSTransportTests.withConnection(servers) { connection in
            let last = try #require(try connection.lastMessage(in: Self.scratchStream, subject: Self.scratchSubject))
            let subscription = try NATSOrderedSubscription(connection: connection, stream: Self.scratchStream, subject: Self.scratchSubject, from: 1)
            var mirror = MirroredList(watch: "products")
            var assembly = JetStreamLineAssembly()
            var changesetParts = ChangesetPartAssembly(maximumBytes: assembly.limit)
            var place: UInt64 = 0
            while place < last.streamSequence, let message = try subscription.next(timeoutMilliseconds: 10_000) {
                place = message.streamSequence
                let envelope = try #require(JetStreamEnvelope(headers: message.headers))
                if let (complete, line) = assembly.add(message.payload, envelope: envelope) {
                    _ = JetStreamFollower.apply(line, envelope: complete, to: &mirror, parts: &changesetParts, at: place)
                }
            }
            subscription.close()
            return (
                try #require(mirror.snapshotLine), try #require(mirror.cursor), JetStreamWatchLayout(headers: last.headers),
                connection.maximumPayload
            )
        }
        // The snapshot as an older sink published it: one line in byte parts, no chunk headers.
        try await NATSTransportTests.withConnection(servers) { connection in
            try connection.ensureStream(NATSStreamSettings(name: Self.stream, subjects: [Self.subject], replicas: 1))
            let parts = try JetStreamParts.split(line, maximumPayload: maximumPayload) { parts in
                JetStreamEnvelope(watch: "products", cursor: cursor, kind: .snapshot, part: parts, parts: parts, reset: false, after: 0, layout: layout)
                    .headers + [("Nats-Msg-Id", String(repeating: "x", count: 60)), ("Nats-Expected-Last-Subject-Sequence", String(UInt64.max))]
            }
            #expect(parts.count > 1, "the snapshot goes in parts")
            var sequence: UInt64 = 0
            for (index, part) in parts.enumerated() {
                let envelope = JetStreamEnvelope(
                    watch: "products", cursor: cursor, kind: .snapshot, part: index + 1, parts: parts.count, reset: false, after: 0,
                    latestSnapshot: index + 1 == parts.count && index > 0 ? 1 : nil, layout: layout)
                let headers = envelope.headers.filter { $0.0 != "ListSync-Chunk" && $0.0 != "ListSync-Last-Chunk" }
                sequence = try connection.publish(
                    part, to: Self.subject, of: Self.stream, messageID: "products/\(cursor)/snapshot-0/\(index + 1)",
                    expectedLastSubjectSequence: sequence, headers: headers
                ).sequence
            }
        }
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("old.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(harness.document("old.csv") == harness.document(harness.watches[0].file), "the old stream is read")

        // Today's sink resumes after the old snapshot and publishes the changesets after it.
        let sink = try Self.startSink(harness, servers, number: 1)
        try await harness.save(ProductVersions.bulk(rows: 203, nameLength: 30))
        try await harness.waitForVersion(cursor.seq + 1)
        let final = try await Self.waitUntilPublished(harness, servers, "the changeset after the old snapshot")
        let messages = try await Self.messages(servers)
        #expect(Self.envelopes(messages).filter { $0.kind == .snapshot }.allSatisfy { $0.cursor == cursor }, "no new snapshot: resumed")
        try Self.audit(messages, endingAt: final, versions: [1, 2])
        #expect(messages.last?.headers["ListSync-Protocol"] == "2", "today's sink publishes at version 2")
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        let after = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("after.csv"), "--once"])
        #expect(after.status == 0, "\(after.error)")
        #expect(harness.document("after.csv") == harness.document(harness.watches[0].file), "the extended stream is read")
    }
}
