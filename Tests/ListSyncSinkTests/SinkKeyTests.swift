import Glibc
import ListFormats
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

extension SinkBehaviourTests {
    /// The columns of `table`'s primary key, in key order.
    static func primaryKey(_ kind: SinkTestDatabaseKind, _ database: any SinkTestDatabase, table: String) async throws -> [String] {
        let sql: String
        switch kind {
        case .sqlite:
            sql = "SELECT name FROM pragma_table_info('\(table)') WHERE pk > 0 ORDER BY pk"
        case .postgres:
            sql = """
                SELECT a.attname FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                WHERE i.indrelid = '\(table)'::regclass AND i.indisprimary ORDER BY k.position
                """
        }
        return try await database.query(sql).map { $0[0] ?? "" }
    }

    /// Without `--key`, the sink takes the watch's key from the daemon's `list` reply: a CSV
    /// watch's column, and a JSON watch's key given as a JSON Pointer (`/id`), become the
    /// table's primary key.
    @Test(arguments: SinkTestDatabaseKind.allCases) func withoutKeyTheTablesPrimaryKeyIsTheWatchsKey(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness(watches: [
            EndToEndHarness.Watch(), EndToEndHarness.Watch(name: "stock", file: "stock.json", key: ["/id"], sectionBy: nil),
        ])
        let database = try await kind.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try FileContent.write(Self.json((1...5).map { ($0, "item \($0)", $0) }), to: harness.path("stock.json"))
        try await harness.startDaemon()
        let products = try Self.startSink(harness, kind, database, [])
        defer { products.send(SIGKILL) }
        try await eventually("the snapshot is in the table") { try await Self.tableEqualsFile(harness, database) }
        #expect(try await Self.primaryKey(kind, database, table: "products") == ["sku"])

        let stock = try ChildProcess(
            try EndToEndHarness.binary("listsync"), ["sink", kind.rawValue, "stock", "--socket", harness.socketPath] + database.sinkArguments,
            outputPath: harness.path("stock.out"), errorPath: harness.path("stock.err"))
        defer { stock.send(SIGKILL) }
        try await eventually("the stock table is filled") { (try? await database.query("SELECT count(*) FROM stock")) == [["5"]] }
        #expect(try await Self.primaryKey(kind, database, table: "stock") == ["id"])
        #expect(products.exitStatus == nil && stock.exitStatus == nil, "\(readFile(harness.path("sink.err")))\(readFile(harness.path("stock.err")))")
    }

    /// A `--key` that is not the watch's key is a usage error (exit status 1) naming both, before
    /// any table is made; the watch's own key, spelled as a JSON Pointer or not, is accepted.
    @Test func aWrongKeyIsAUsageError() async throws {
        let harness = try EndToEndHarness()
        let database = SQLiteTestDatabase(path: harness.path("sink.sqlite"))
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let wrong = try Self.startSink(harness, .sqlite, database, ["--key", "sku", "--key", "name"])
        defer { wrong.send(SIGKILL) }
        #expect(try await wrong.waitForExit() == 1)
        let error = readFile(harness.path("sink.err"))
        #expect(error.contains("--key sku, name is not the key of the watch products (sku)"), "\(error)")
        #expect(try await database.query("SELECT count(*) FROM sqlite_master WHERE name = 'products'") == [["0"]], "no table was made")

        let right = try Self.startSink(harness, .sqlite, database, ["--key", "/sku"])
        defer { right.send(SIGKILL) }
        try await eventually("the snapshot is in the table") { try await Self.tableEqualsFile(harness, database) }
        #expect(right.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }
}
