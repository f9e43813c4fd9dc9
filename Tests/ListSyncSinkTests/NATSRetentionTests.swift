import Foundation
import Glibc
import ListSyncProtocol
import ListSyncTestSupport
import NATSTransport
import Testing

@testable import ListSyncSink

/// `listsync sink nats --max-bytes/--max-age` bound the stream from the sink: the watch's
/// subject is purged below its latest complete snapshot, never that snapshot or the changesets
/// after it, so a late reader with the daemon stopped still rebuilds the list.
extension NATSSinkTests {
    /// Random versions with `--snapshot-every 2` and a bound in `options`, `pause` between them;
    /// after each publish the stream is within the bound (`within` says whether a stream state
    /// is) or holds nothing before the latest complete snapshot, and its first message is a
    /// snapshot's first part; with the daemon stopped, a late `mirror --from --once` equals what
    /// `listsync snapshot` printed. The sink's log.
    static func boundedStream(
        _ options: [String], versions: Int, pause: Duration, seed: UInt64, within: @escaping @Sendable (NATSStreamState) -> Bool
    ) async throws -> String {
        let servers = try await NATSServers()
        var generator = SplitMix(seed: seed)
        let header = SinkCrashTests.headers[0]
        let harness = try await Self.harnessWithRandomList(header, using: &generator)
        let sink = try Self.startSink(harness, servers, number: 0, extra: ["--snapshot-every", "2"] + options)
        var cursor = try await Self.waitUntilPublished(harness, servers, "the first version")
        var purged = false
        for version in 1...versions {
            try await harness.save(SinkCrashTests.version(header, using: &generator))
            try await harness.waitForVersion(cursor.seq + 1)
            cursor = try await Self.waitUntilPublished(harness, servers, "version \(version)")
            var seen = ""
            do { try await eventually("the stream is within its bound or starts at its latest snapshot (version \(version))", timeout: .seconds(30)) {
                let (state, last) = try await NATSTransportTests.withConnection(servers) { connection in
                    (try connection.streamState(Self.stream), try connection.lastMessage(in: Self.stream, subject: Self.subject))
                }
                guard let state, let last, let envelope = JetStreamEnvelope(headers: last.headers) else { return false }
                let latest = envelope.latestSnapshot(at: last.streamSequence)
                seen = "first \(state.firstSequence) at \(state.firstTimeNanoseconds), last at \(state.lastTimeNanoseconds), \(state.bytes) bytes, latest snapshot \(String(describing: latest))"
                return within(state) || state.firstSequence == latest
            } } catch { throw TestFailure("\(error): \(seen)\n\(readFile(harness.path("sink-0.err")))") }
            let messages = try await Self.messages(servers)
            let first = try #require(messages.first.flatMap { JetStreamEnvelope(headers: $0.headers) })
            #expect(first.kind == .snapshot && first.part == 1, "the stream's first message is a snapshot's first part (version \(version), \(seen))")
            if messages.first?.streamSequence ?? 1 > 1 { purged = true }
            try Self.audit(messages, endingAt: cursor)
            try await Task.sleep(for: pause)
        }
        #expect(purged, "older messages were purged")
        try await Self.expectLateMirrorEqualsTheSnapshot(harness, servers, sink: sink)
        return readFile(harness.path("sink-0.err"))
    }

    /// Stops the daemon and `sink`; then a late `mirror --from --once`, fed by the stream alone,
    /// must equal what `listsync snapshot` printed before.
    static func expectLateMirrorEqualsTheSnapshot(_ harness: EndToEndHarness, _ servers: NATSServers, sink: ChildProcess) async throws {
        let snapshot = try await harness.run("snapshot", ["products", "--output-format", "csv"])
        #expect(snapshot.status == 0, "\(snapshot.error)")
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("late.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(readFile(harness.path("late.csv")) == snapshot.output, "a late mirror of the stream is what `listsync snapshot` printed")
    }

    /// `--max-bytes` smaller than a snapshot and its tail: the stream keeps the latest snapshot
    /// and the changesets after it, drops the rest, and the sink says once why it is over.
    @Test func maxBytesKeepsTheLatestSnapshotAndItsTail() async throws {
        let bound: UInt64 = 3000
        let log = try await Self.boundedStream(["--max-bytes", "\(bound)"], versions: 10, pause: .zero, seed: 2101) { $0.bytes <= bound }
        #expect(log.contains("more than --max-bytes \(bound)"), "the sink says the stream is over its bound: \(log)")
    }

    /// `--max-age` of a few seconds: messages older than the latest snapshot go once the first
    /// one is older than that, never the latest snapshot.
    @Test func maxAgeKeepsTheLatestSnapshotAndItsTail() async throws {
        let seconds: Int64 = 2
        // The sink enforces the bound after each publish: at the last message's time.
        _ = try await Self.boundedStream(["--max-age", "\(seconds)"], versions: 8, pause: .milliseconds(900), seed: 2102) { state in
            state.lastTimeNanoseconds - state.firstTimeNanoseconds <= seconds * 1_000_000_000
        }
    }
}
