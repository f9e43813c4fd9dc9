import Glibc
import ListFormats
import NIOCore
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// PostgreSQL's limits the sink must live with: names longer than 63 bytes, U+0000 in JSON, and
/// failures that must say their cause.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SinkPostgresNamesTests {
    /// The rows of a table as the database names it (``SQLDialect/identifier(_:)``).
    static func count(_ server: PostgresServer, _ table: String) async throws -> String? {
        try? await server.query("SELECT count(*) FROM \(SQLDialect.postgres.quoted(table))").first?.first ?? nil
    }

    /// A 64-character watch name (the default table name), two header fields that share their
    /// first 70 bytes, and two `--table` names that share their first 48 bytes: every table is
    /// filled, and a restarted sink resumes from its cursor instead of taking a snapshot again.
    @Test func namesLongerThan63Bytes() async throws {
        let watch = String(repeating: "w", count: 64)
        let long = String(repeating: "c", count: 70)
        let harness = try EndToEndHarness(watches: [.init(name: watch, file: "long.csv", key: ["sku"], sectionBy: nil)])
        let server = try await PostgresServer()
        let database = PostgresTestDatabase(server: server)
        try FileContent.write("sku,\(long)_one,\(long)_two\n" + (1...20).map { "S\($0),a\($0),b\($0)" }.joined(separator: "\n") + "\n", to: harness.watched)
        try await harness.startDaemon()
        let first = try SinkOwnershipTests.sink(harness, .postgres, database, watch: watch)
        try await eventually("the long-named table is filled") { try await Self.count(server, watch) == "20" }
        #expect(try await server.query("SELECT \(SQLDialect.postgres.quoted(long + "_two")) FROM \(SQLDialect.postgres.quoted(watch)) WHERE sku = 'S3'") == [["b3"]])
        first.send(SIGKILL)
        _ = try await first.waitForExit()

        let again = try SinkOwnershipTests.sink(harness, .postgres, database, watch: watch, log: "again")
        defer { again.send(SIGKILL) }
        try await eventually("the restarted sink subscribes") { readFile(harness.path("again.err")).contains("subscribed") }
        try await harness.save("sku,\(long)_one,\(long)_two\n" + (1...21).map { "S\($0),a\($0),b\($0)" }.joined(separator: "\n") + "\n")
        try await eventually("the new row arrives") { try await Self.count(server, watch) == "21" }
        let log = readFile(harness.path("again.err"))
        #expect(log.contains(": resuming") && !log.contains("table replaced"), "\(log)")

        let tables = ["alpha", "beta"].map { String(repeating: "t", count: 48) + "_\($0)_" + String(repeating: "x", count: 20) }
        // Started together: each keeps its own cursor and sections (keyed by watch and table).
        var sinks = try tables.map { try SinkOwnershipTests.sink(harness, .postgres, database, watch: watch, ["--table", $0], log: $0) }
        defer { sinks.forEach { $0.send(SIGKILL) } }
        for table in tables {
            do {
                try await eventually("\(table) is filled", timeout: .seconds(60)) { try await Self.count(server, table) == "21" }
            } catch {
                Issue.record("\(error): \(readFile(harness.path(table + ".err")))")
                throw error
            }
        }
        for (sink, table) in zip(sinks, tables) { #expect(sink.exitStatus == nil, "\(readFile(harness.path(table + ".err")))") }

        // Each restarted resumes from its own cursor: the other's never overwrote it.
        for sink in sinks {
            sink.send(SIGKILL)
            _ = try await sink.waitForExit()
        }
        sinks = try tables.map { try SinkOwnershipTests.sink(harness, .postgres, database, watch: watch, ["--table", $0], log: $0 + "-again") }
        for table in tables {
            try await eventually("\(table)'s sink restarts", timeout: .seconds(60)) { readFile(harness.path(table + "-again.err")).contains("subscribed") }
        }
        try await harness.save("sku,\(long)_one,\(long)_two\n" + (1...22).map { "S\($0),a\($0),b\($0)" }.joined(separator: "\n") + "\n")
        for table in tables {
            try await eventually("\(table) gets the new row", timeout: .seconds(60)) { try await Self.count(server, table) == "22" }
            let log = readFile(harness.path(table + "-again.err"))
            #expect(log.contains(": resuming") && !log.contains("table replaced"), "\(log)")
        }
    }

    /// JSON records holding `\u0000` (which `jsonb` and `text` cannot hold) are stored exactly in
    /// the `json` record column: `--verify` finds the table equal to the list, the stream goes on.
    @Test func recordsHoldingU0000() async throws {
        let harness = try EndToEndHarness(watches: [.init(name: "stock", file: "stock.json", key: ["id"], sectionBy: nil)])
        let server = try await PostgresServer()
        let database = PostgresTestDatabase(server: server)
        func version(_ count: Int) -> String {
            "[" + (1...count).map { #"{"id":\#($0),"name":"a\u0000b\#($0)","n":1e2}"# }.joined(separator: ",\n") + "]\n"
        }
        try FileContent.write(version(3), to: harness.watched)
        try await harness.startDaemon()
        let sink = try SinkOwnershipTests.sink(harness, .postgres, database, watch: "stock", ["--column", "name", "--verify"])
        defer { sink.send(SIGKILL) }
        for count in [3, 5] {
            if count > 3 { try await harness.save(version(count)) }
            let expected = try ListReader(options: ReadOptions(format: .json)).read(bytes: Array(version(count).utf8)).document.allRecords
            try await eventually("the table holds \(count) records") {
                guard let rows = try? await database.query("SELECT listsync_record::text FROM stock ORDER BY listsync_order"),
                    let stored = try? SinkTables.jsonRecords(rows)
                else { return false }
                return stored == expected
            }
        }
        #expect(try await server.query("SELECT name FROM stock WHERE id = '2'") == [[#"a\u0000b2"#]])
        let log = readFile(harness.path("sink.err"))
        #expect(!log.contains("resynchronizing") && sink.exitStatus == nil, "\(log)")
    }

    /// A PostgreSQL setting that does not read says where it came from; a socket directory that
    /// does not exist is retried with the cause: the socket's path, the errno, where the
    /// directory came from.
    @Test func failuresSayTheirCause() async throws {
        let harness = try EndToEndHarness()
        let port = try ChildProcess(
            "/usr/bin/env", ["PGPORT=abc", try EndToEndHarness.binary("listsync"), "sink", "postgres", "products", "--socket", harness.socketPath],
            outputPath: harness.path("port.out"), errorPath: harness.path("port.err"))
        #expect(try await port.waitForExit() == 1)
        #expect(readFile(harness.path("port.err")).contains("not a port: abc (from PGPORT)"), "\(readFile(harness.path("port.err")))")

        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let missing = harness.path("no-such-directory")
        let sink = try ChildProcess(
            try EndToEndHarness.binary("listsync"),
            ["sink", "postgres", "products", "--socket", harness.socketPath, "--url", "postgres://postgres@/postgres?host=\(missing)"],
            outputPath: harness.path("sink.out"), errorPath: harness.path("sink.err"))
        defer { sink.send(SIGKILL) }
        try await eventually("the retry says why") {
            let log = readFile(harness.path("sink.err"))
            return log.contains("\(missing)/.s.PGSQL.5432 (directory from --url") && log.contains("No such file or directory")
        }
        #expect(sink.exitStatus == nil)
    }

    /// Only failures of the connection are retried: anything else (a reply that does not decode,
    /// TLS set-up) fails at once.
    @Test func onlyConnectionFailuresAreTransient() {
        struct NotAConnectionFailure: Error {}
        #expect(!PostgresSinkStore.isTransient(NotAConnectionFailure()))
        #expect(PostgresSinkStore.isTransient(IOError(errnoCode: ECONNREFUSED, reason: "connect")))
        #expect(PostgresSinkStore.isTransient(ChannelError.ioOnClosedChannel))
    }
}

extension SinkOwnershipTests {
    /// A changeset that touches every row (every price changed, then a column renamed) refills
    /// the table in its transaction — logged, never dropped: a view on it survives — and the
    /// table equals the file after each.
    @Test(arguments: SinkTestDatabaseKind.allCases) func aChangesetTouchingEveryRowRefillsTheTable(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let database = try await kind.make(harness)
        let rows = 1500
        func version(_ header: String, price: Int) -> String {
            ([header] + (0..<rows).map { "B\($0),item \($0),\(price).00,bulk" }).joined(separator: "\n") + "\n"
        }
        try FileContent.write(version(ProductVersions.header, price: 1), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.sink(harness, kind, database)
        defer { sink.send(SIGKILL) }
        try await eventually("the snapshot is in the table") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        _ = try await database.query("CREATE VIEW products_skus AS SELECT sku FROM products")

        try await harness.save(version(ProductVersions.header, price: 2))
        try await eventually("the table equals the file") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        #expect(readFile(harness.path("sink.err")).contains("table refilled by the changeset"), "\(readFile(harness.path("sink.err")))")

        let renamed = "sku,title,price,category"
        try await harness.save(version(renamed, price: 2))
        let columns = renamed.split(separator: ",").map(String.init)
        let expected = try ListReader(options: harness.watches[0].readOptions).read(bytes: Array(version(renamed, price: 2).utf8)).document
        try await eventually("the renamed column is in the table") {
            let select = SinkTables.orderedSelect(columns, table: "products", watch: "products", sectioned: true, collate: database.orderCollation)
            guard let stored = try? await database.query(select) else { return false }
            return SinkTables.csvDocument(stored, columns: columns, sectioned: true) == expected
        }
        let log = readFile(harness.path("sink.err"))
        #expect(log.components(separatedBy: "table refilled by the changeset").count == 3, "\(log)")
        #expect(try await database.query("SELECT count(*) FROM products_skus") == [[String(rows)]])
        #expect(!log.contains("resynchronizing") && sink.exitStatus == nil, "\(log)")
    }
}
