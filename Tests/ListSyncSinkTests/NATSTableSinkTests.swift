import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

@testable import ListSyncSink

/// `listsync sink sqlite|postgres --from nats://…`: a table fed by the watch's stream alone, with
/// the daemon stopped, equals what `listsync snapshot` printed; killed with SIGKILL and started
/// again after more versions, it reads on from the stream sequence its table records and commits
/// each cursor once.
extension NATSSinkTests {
    /// Starts `listsync sink KIND products --from SERVERS` on `database`, its output in
    /// `table-sink-NUMBER.err`.
    static func startTableSink(
        _ harness: EndToEndHarness, _ servers: NATSServers, _ kind: SinkTestDatabaseKind, _ database: any SinkTestDatabase, number: Int
    ) throws -> ChildProcess {
        try ChildProcess(
            try EndToEndHarness.binary("listsync"),
            ["sink", kind.rawValue, "products", "--from", servers.urls] + database.sinkArguments,
            outputPath: harness.path("table-sink-\(number).err"), errorPath: harness.path("table-sink-\(number).err"))
    }

    /// What `listsync snapshot` prints now, as the watch reads it.
    static func printedSnapshot(_ harness: EndToEndHarness, as name: String) async throws -> ListDocument {
        let snapshot = try await harness.run("snapshot", ["products", "--output-format", "csv"])
        #expect(snapshot.status == 0, "\(snapshot.error)")
        try FileContent.write(snapshot.output, to: harness.path(name))
        return try #require(harness.document(name))
    }

    @Test(arguments: SinkTestDatabaseKind.allCases) func aTableSinkFedByTheStreamAcrossAKill(kind: SinkTestDatabaseKind) async throws {
        let servers = try await NATSServers()
        let harness = try await EndToEndHarness.running()
        let database = try await kind.make(harness)
        try await database.installAudit()
        var natsSink = try Self.startSink(harness, servers, number: 0, extra: ["--snapshot-every", "2"])
        for version in 1...3 {
            try await harness.save(ProductVersions.csv(version))
            try await harness.waitForVersion(UInt64(version))
        }
        _ = try await Self.waitUntilPublished(harness, servers, "three versions")
        var expected = try await Self.printedSnapshot(harness, as: "expected-1.csv")
        try await harness.stopDaemon()

        var sink = try Self.startTableSink(harness, servers, kind, database, number: 0)
        try await eventually("the table equals the snapshot, the daemon stopped", timeout: .seconds(60)) {
            (try? await SinkCrashTests.table(database, columns: SinkBehaviourTests.productColumns)) == expected
        }
        // The sink logs the snapshot once it committed it: not killed between the two.
        try await eventually("the sink logged the snapshot it committed") {
            readFile(harness.path("table-sink-0.err")).contains("table replaced")
        }
        sink.send(SIGKILL)
        _ = try await sink.waitForExit()
        let before = try await database.auditedCursors().count

        // More versions while the table sink is down (and the NATS sink killed and restarted).
        try await harness.startDaemon()
        natsSink.send(SIGKILL)
        _ = try await natsSink.waitForExit()
        natsSink = try Self.startSink(harness, servers, number: 1, extra: ["--snapshot-every", "2"])
        for version in 4...8 {
            try await harness.save(ProductVersions.csv(version))
            try await harness.waitForVersion(UInt64(version))
        }
        let final = try await Self.waitUntilPublished(harness, servers, "eight versions")
        expected = try await Self.printedSnapshot(harness, as: "expected-2.csv")
        try await harness.stopDaemon()
        natsSink.send(SIGKILL)

        sink = try Self.startTableSink(harness, servers, kind, database, number: 1)
        try await eventually("the table equals the snapshot again", timeout: .seconds(60)) {
            (try? await SinkCrashTests.table(database, columns: SinkBehaviourTests.productColumns)) == expected
        }
        try await eventually("the table is at the last cursor") { try await database.storedCursor("products") == final }
        sink.send(SIGKILL)
        let log = readFile(harness.path("table-sink-0.err")) + readFile(harness.path("table-sink-1.err"))

        // Exactly once: a snapshot, then every later cursor once, in order; after the restart
        // only the changesets the table did not have (no snapshot taken again).
        let audited = try await database.auditedCursors()
        let seqs = audited.map(\.seq)
        #expect(Set(audited.map(\.epoch)).count == 1, "one epoch: \(audited)")
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "each cursor once, in order: \(seqs)\n\(log)")
        #expect(seqs.last == final.seq)
        #expect(audited.count - before == 5, "the restarted sink committed the five changesets it lacked: \(seqs)\n\(log)")
        #expect(log.components(separatedBy: "table replaced").count == 2, "one snapshot, at the first start: \(log)")
        // The table's place in the stream: the stream sequence of the last message committed.
        let place = try await database.query(
            "SELECT stream, epoch, seq, stream_sequence FROM listsync_stream_places WHERE watch = 'products' AND table_name = 'products'")
        let last = try await Self.messages(servers).last { JetStreamEnvelope(headers: $0.headers)?.cursor == final && $0.headers["ListSync-Type"] == "changeset" }
        #expect(place.count == 1 && place.first?[0] == Self.stream && place.first?[2] == "\(final.seq)", "\(place)")
        #expect(place.first?[3] == last.map { "\($0.streamSequence)" }, "the place is the last changeset's message: \(place)")
    }

    /// A reload that drops the watch's sections starts a new epoch: its snapshot in the stream
    /// says the list is no longer sectioned, and a table fed by the stream is recreated linear,
    /// as over the socket.
    @Test func aTableFedByTheStreamFollowsALayoutChange() async throws {
        let servers = try await NATSServers()
        let harness = try await EndToEndHarness.running()
        let database = SQLiteTestDatabase(path: harness.path("sink.sqlite"))
        let natsSink = try Self.startSink(harness, servers, number: 0)
        defer { natsSink.send(SIGKILL) }
        _ = try await Self.waitUntilPublished(harness, servers, "the first snapshot")
        let sink = try Self.startTableSink(harness, servers, .sqlite, database, number: 0)
        defer { sink.send(SIGKILL) }
        let columns = SinkBehaviourTests.productColumns
        let sectioned = try #require(harness.document(harness.watches[0].file))
        try await eventually("the table is sectioned", timeout: .seconds(60)) {
            (try? await SinkCrashTests.table(database, columns: columns)) == sectioned
        }

        let configuration = harness.path("listsyncd.toml")
        try FileContent.write(readFile(configuration).replacingAll("section_by = \"category\"\n", with: ""), to: configuration)
        harness.daemon?.send(SIGHUP)
        let linear = try ListReader(options: ReadOptions(format: ListFormat(path: harness.watched) ?? .json, key: ["sku"])).read(contentsOfFile: harness.watched).document
        try await eventually("the table is linear", timeout: .seconds(60)) {
            let select = SinkTables.orderedSelect(columns, table: "products", watch: "products", sectioned: false)
            guard let rows = try? await database.query(select) else { return false }
            return SinkTables.csvDocument(rows, columns: columns, sectioned: false) == linear
        }
        let log = readFile(harness.path("table-sink-0.err"))
        #expect(try await database.query("SELECT count(*) FROM listsync_sections WHERE watch = 'products'") == [["1"]], "\(log)")
        #expect(
            try await database.query("SELECT count(*) FROM pragma_table_info('products') WHERE name = 'listsync_section'") == [["0"]],
            "the table was recreated without the section column: \(log)")
        #expect(log.contains("table replaced by the snapshot at") && log.components(separatedBy: "table replaced").count == 3, "\(log)")
        #expect(sink.exitStatus == nil, "\(log)")
    }
}
