import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

@testable import ListSyncSink

/// The table sinks speak protocol version 2: the daemon computes no version 1 digest for them,
/// and a table written by a sink of version 1 (its cursor row holding a version 1 digest) resumes.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SinkDigestVersionTests {
    /// The watched file's version 2 digest, computed from scratch.
    static func digestOfFile(_ harness: EndToEndHarness) throws -> String {
        let list = try ListReader(options: harness.watches[0].readOptions).read(bytes: Array(readFile(harness.watched).utf8))
        return ListDigest(of: list, version: .v2).description
    }

    /// The digest and seq of the products table's cursor row.
    static func cursorRow(_ database: any SinkTestDatabase) async throws -> (digest: String, seq: String)? {
        let rows = try await database.query("SELECT digest, seq FROM listsync_cursors WHERE watch = 'products' AND table_name = 'products'")
        guard let row = rows.first, row.count == 2, let digest = row[0], let seq = row[1] else { return nil }
        return (digest, seq)
    }

    /// A SQLite sink follows several versions (checking every digest, `--verify` too) while the
    /// daemon computes no version 1 digest: no version 1 client ever subscribed, so the watch's
    /// `v1-client` mark is never written, and the table's cursor row holds version 2 digests.
    @Test func aSinkFollowsWithoutVersion1Digests() async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await SinkBehaviourTests.productsSink(harness, .sqlite, ["--verify"])
        defer { sink.send(SIGKILL) }
        for version in 1...4 {
            try await harness.save(ProductVersions.csv(version))
            try await eventually("the table holds version \(version)") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        }
        let digest = try Self.digestOfFile(harness)
        try await eventually("the cursor row holds the version 2 digest") { try await Self.cursorRow(database)?.digest == digest }
        #expect(access(harness.path("state/products/v1-client"), F_OK) != 0, "the daemon noted a version 1 client")
        let log = readFile(harness.path("sink.err"))
        #expect(!log.contains("resynchronizing"), "\(log)")
        #expect(sink.exitStatus == nil, "\(log)")
    }

    /// A table whose cursor row holds a version 1 digest, as every sink before version 2 wrote it,
    /// resumes at its cursor: the sink started on it applies the changesets it lacks (no
    /// snapshot replaces the table), then stores version 2 digests.
    @Test func aTableWithAVersion1DigestResumesAtItsCursor() async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await SinkBehaviourTests.productsSink(harness, .sqlite, [])
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the table holds version 1") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        // The cursor row as a version 1 sink leaves it.
        let list = try ListReader(options: harness.watches[0].readOptions).read(bytes: Array(readFile(harness.watched).utf8))
        let v1 = ListDigest(of: list, version: .v1).description
        _ = try await database.query("UPDATE listsync_cursors SET digest = '\(v1)' WHERE watch = 'products'")
        let stoppedAt = try #require(try await Self.cursorRow(database)).seq
        try await harness.save(ProductVersions.csv(2))
        try await harness.save(ProductVersions.csv(3))
        // The sinks' log is appended to: what the resumed sink says comes after this.
        let logged = readFile(harness.path("sink.err")).utf8.count
        let resumed = try SinkBehaviourTests.startSink(harness, .sqlite, database, [])
        defer { resumed.send(SIGKILL) }
        try await eventually("the table holds version 3") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        let digest = try Self.digestOfFile(harness)
        try await eventually("the cursor row holds the version 2 digest") { try await Self.cursorRow(database)?.digest == digest }
        let log = String(decoding: readFile(harness.path("sink.err")).utf8.dropFirst(logged), as: UTF8.self)
        #expect(!log.contains("table replaced"), "resumed from \(stoppedAt) with a snapshot: \(log)")
        #expect(!log.contains("resynchronizing"), "\(log)")
        #expect(access(harness.path("state/products/v1-client"), F_OK) != 0, "the daemon noted a version 1 client")
    }
}
