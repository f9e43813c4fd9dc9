import Foundation
import Glibc
import ListSyncTestSupport
import NATSTransport
import Testing

@testable import ListSyncSink

/// A client following the stream (`--from`) writes a snapshot as its chunks arrive, as over the
/// socket, instead of holding it whole before writing it.
extension NATSSinkTests {
    /// `snapshot --from` of a 100k-row list (a snapshot of about 14 MB on the stream, in
    /// chunks), to standard output and with `--output`, and `mirror --from --once`, write what
    /// `listsync snapshot` prints over the socket, through the chunk-by-chunk path, with the
    /// daemon stopped. (Their peak memory is checked in `aSnapshotReaderIsSentTheStreamABatchAtATime`.)
    @Test func aSnapshotFromTheStreamIsWrittenAsItsChunksArrive() async throws {
        let servers = try await NATSServers()
        let harness = try EndToEndHarness()
        try FileContent.write(ProductVersions.bulk(rows: 100_000, nameLength: 30), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, servers, number: 0)
        let final = try await Self.waitUntilPublished(harness, servers, "the list")
        let expected = try await harness.run("snapshot", ["products", "--output-format", "csv"])
        #expect(expected.status == 0, "\(expected.error)")
        try await harness.stopDaemon()
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        let chunks = try await Self.messages(servers).filter { JetStreamEnvelope(headers: $0.headers).map { $0.kind == .snapshot && $0.cursor == final } ?? false }
        #expect(chunks.count > 10, "the snapshot is in chunks: \(chunks.count)")

        let printed = try await harness.run("snapshot", ["products", "--output-format", "csv", "--from", servers.urls])
        #expect(printed.status == 0, "\(printed.error)")
        #expect(printed.output == expected.output, "snapshot --from prints what snapshot prints over the socket")
        let output = harness.path("remote.csv")
        let written = try await harness.run("snapshot", ["products", "--output-format", "csv", "--from", servers.urls, "--output", output])
        #expect(written.status == 0, "\(written.error)")
        #expect(readFile(output) == expected.output, "snapshot --from --output writes what snapshot prints over the socket")
        let mirror = try await harness.run("mirror", ["products", "--from", servers.urls, "--output", harness.path("mirror.csv"), "--once"])
        #expect(mirror.status == 0, "\(mirror.error)")
        #expect(readFile(harness.path("mirror.csv")) == expected.output, "mirror --from writes what snapshot prints over the socket")
        let left = try FileManager.default.contentsOfDirectory(atPath: harness.directory).filter { $0.range(of: #"\.listsync-[0-9]+$"#, options: .regularExpression) != nil }
        #expect(left.isEmpty, "no temporary file is left: \(left)")
    }
}
