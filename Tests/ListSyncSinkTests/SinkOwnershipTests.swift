import Glibc
import ListFormats
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// Sinks own their tables: a table the sink did not make is refused (exit status 1) unless the
/// user passes `--take-over-table`; each transaction checks the table is still the watch's and
/// each `UPDATE`/`DELETE` the rows it changed; one sink per table.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SinkOwnershipTests {
    /// Starts `listsync sink KIND WATCH …` with its standard error in `LOG.err`.
    static func sink(
        _ harness: EndToEndHarness, _ kind: SinkTestDatabaseKind, _ database: any SinkTestDatabase, watch: String = "products",
        _ options: [String] = [], log: String = "sink"
    ) throws -> ChildProcess {
        try ChildProcess(
            try EndToEndHarness.binary("listsync"),
            ["sink", kind.rawValue, watch, "--socket", harness.socketPath] + options + database.sinkArguments,
            outputPath: harness.path(log + ".out"), errorPath: harness.path(log + ".err"))
    }

    /// A user's own `products` table (other columns, their rows), and a user's table named with
    /// `--table` whose columns are exactly the sink's: both refused with exit status 1 and a
    /// message naming the table, their rows and columns untouched; `--take-over-table` takes
    /// the first over.
    @Test(arguments: SinkTestDatabaseKind.allCases) func aUsersTableIsRefusedUnlessTakenOver(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let database = try await kind.make(harness)
        _ = try await database.query("CREATE TABLE products (sku TEXT PRIMARY KEY, note TEXT)")
        _ = try await database.query("INSERT INTO products (sku, note) VALUES ('mine', 'a user''s row')")
        let integer = kind == .sqlite ? "INTEGER" : "BIGINT"
        _ = try await database.query(
            """
            CREATE TABLE inventory (sku TEXT NOT NULL, name TEXT, price TEXT, category TEXT, listsync_row \(integer) NOT NULL UNIQUE,
              listsync_section TEXT NOT NULL, listsync_order TEXT NOT NULL, listsync_hash TEXT NOT NULL, PRIMARY KEY (sku))
            """)
        _ = try await database.query("INSERT INTO inventory VALUES ('mine', 'kept', '1', 'c', 1, 'c', 'V', 'h')")
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()

        let refused = try Self.sink(harness, kind, database)
        #expect(try await refused.waitForExit() == 1)
        let message = readFile(harness.path("sink.err"))
        #expect(message.contains("\"products\"") && message.contains("--take-over-table"), "\(message)")
        #expect(try await database.query("SELECT sku, note FROM products") == [["mine", "a user's row"]])

        let inventory = try Self.sink(harness, kind, database, ["--table", "inventory"], log: "inventory")
        #expect(try await inventory.waitForExit() == 1)
        #expect(readFile(harness.path("inventory.err")).contains("\"inventory\""), "\(readFile(harness.path("inventory.err")))")
        #expect(try await database.query("SELECT sku, name FROM inventory") == [["mine", "kept"]])

        let takeOver = try Self.sink(harness, kind, database, ["--take-over-table"], log: "takeover")
        defer { takeOver.send(SIGKILL) }
        try await eventually("the taken-over table equals the file") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        #expect(try await database.query("SELECT watch FROM listsync_tables WHERE table_name = 'products'") == [["products"]])
        #expect(takeOver.exitStatus == nil, "\(readFile(harness.path("takeover.err")))")
    }

    /// Another watch's table: refused with the owner's name while its sink is stopped
    /// (``anotherWatchsSinkOnARunningSinksTable(kind:)`` covers the take-over). And a running
    /// sink whose table is no longer its watch's (recorded for another by hand) finds it in its
    /// next transaction: logged as a divergence, then refused — it never writes on.
    @Test(arguments: SinkTestDatabaseKind.allCases) func anotherWatchsTable(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness(watches: [
            EndToEndHarness.Watch(), EndToEndHarness.Watch(name: "order", file: "order.csv", key: ["sku"], sectionBy: "category"),
        ])
        let database = try await kind.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try FileContent.write(ProductVersions.csv(3), to: harness.path("order.csv"))
        try await harness.startDaemon()
        let first = try Self.sink(harness, kind, database)
        try await eventually("the snapshot is in the table") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        first.send(SIGKILL)
        _ = try await first.waitForExit()

        let order = try Self.sink(harness, kind, database, watch: "order", ["--table", "products"], log: "order")
        #expect(try await order.waitForExit() == 1)
        let message = readFile(harness.path("order.err"))
        #expect(message.contains("\"products\"") && message.contains("watch products"), "\(message)")
        #expect(try await SinkBehaviourTests.tableEqualsFile(harness, database))

        let running = try Self.sink(harness, kind, database, log: "running")
        defer { running.send(SIGKILL) }
        try await eventually("the sink resumes") { readFile(harness.path("running.err")).contains("resuming") }
        _ = try await database.query("UPDATE listsync_tables SET watch = 'order' WHERE table_name = 'products'")
        try await harness.save(ProductVersions.csv(1))
        #expect(try await running.waitForExit() == 1)
        let log = readFile(harness.path("running.err"))
        #expect(log.contains("resynchronizing (1 so far)") && log.contains("now belongs to the sink of the watch order"), "\(log)")
        #expect(log.contains("belongs to the sink of the watch order, not products"), "\(log)")
        // Version 1 was never written: the table stayed at version 0.
        let version0 = try ListReader(options: harness.watches[0].readOptions).read(bytes: Array(ProductVersions.csv(0).utf8)).document
        #expect(try await SinkCrashTests.table(database, columns: SinkBehaviourTests.productColumns) == version0)
    }

    /// #17 item 12: while the sink of `products` runs, the sink of another watch (`order`) on
    /// the same table — even with `--take-over-table` — exits 1 naming the running sink, and the
    /// table keeps `products`' rows. Once that sink is stopped, `--take-over-table` gives the
    /// table to `order` (its rows, `listsync_tables`), and the sink of `products` is then refused
    /// in its turn, leaving `order`'s rows as they are.
    @Test(arguments: SinkTestDatabaseKind.allCases) func anotherWatchsSinkOnARunningSinksTable(kind: SinkTestDatabaseKind) async throws {
        let order = EndToEndHarness.Watch(name: "order", file: "order.csv", key: ["sku"], sectionBy: "category")
        let harness = try EndToEndHarness(watches: [EndToEndHarness.Watch(), order])
        let database = try await kind.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try FileContent.write(ProductVersions.csv(3), to: harness.path("order.csv"))
        try await harness.startDaemon()
        let first = try Self.sink(harness, kind, database)
        defer { first.send(SIGKILL) }
        try await eventually("the snapshot is in the table") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }

        for (log, options) in [("order", ["--table", "products"]), ("order-take", ["--table", "products", "--take-over-table"])] {
            let other = try Self.sink(harness, kind, database, watch: "order", options, log: log)
            defer { other.send(SIGKILL) }
            #expect(try await other.waitForExit(timeout: .seconds(10)) == 1)
            let message = readFile(harness.path(log + ".err"))
            #expect(message.contains("\"products\"") && message.contains("held by"), "\(message)")
        }
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the running sink follows its file") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        #expect(first.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
        first.send(SIGKILL)
        _ = try await first.waitForExit()

        let takeOver = try Self.sink(harness, kind, database, watch: "order", ["--table", "products", "--take-over-table"], log: "takeover")
        defer { takeOver.send(SIGKILL) }
        try await eventually("the table holds order's list") {
            try await SinkBookkeepingTests.tableEqualsFile(harness, database, "products", watch: order)
        }
        #expect(try await database.query("SELECT watch FROM listsync_tables WHERE table_name = 'products'") == [["order"]])
        takeOver.send(SIGKILL)
        _ = try await takeOver.waitForExit()

        let refused = try Self.sink(harness, kind, database, log: "refused")
        defer { refused.send(SIGKILL) }
        #expect(try await refused.waitForExit(timeout: .seconds(10)) == 1)
        let message = readFile(harness.path("refused.err"))
        #expect(message.contains("belongs to the sink of the watch order, not products"), "\(message)")
        #expect(try await SinkBookkeepingTests.tableEqualsFile(harness, database, "products", watch: order))
    }

    /// Without `--verify`: a row deleted by hand that the next changeset updates — the `UPDATE`
    /// changes no row — is a divergence, logged and repaired by a snapshot.
    @Test(arguments: SinkTestDatabaseKind.allCases) func anUpdateOfARowDeletedByHandResynchronizes(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await SinkBehaviourTests.productsSink(harness, kind, [])
        defer { sink.send(SIGKILL) }
        _ = try await database.query("DELETE FROM products WHERE sku = 'S1'")
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the sink resynchronizes") { readFile(harness.path("sink.err")).contains("resynchronizing (1 so far)") }
        #expect(readFile(harness.path("sink.err")).contains("changed 0 rows"), "\(readFile(harness.path("sink.err")))")
        try await eventually("the table equals the file again") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }

    /// A second sink on a table exits at once with status 1, naming the table and the sink that
    /// holds it (its process id for SQLite, its `application_name` and server process for
    /// PostgreSQL) — for SQLite also through a symbolic link to the database; the first goes on.
    @Test(arguments: SinkTestDatabaseKind.allCases) func aSecondSinkOnATableExitsAtOnce(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let (database, first) = try await SinkBehaviourTests.productsSink(harness, kind, [])
        defer { first.send(SIGKILL) }
        let second = try Self.sink(harness, kind, database, log: "second")
        defer { second.send(SIGKILL) }
        #expect(try await second.waitForExit(timeout: .seconds(10)) == 1)
        let message = readFile(harness.path("second.err"))
        #expect(message.contains("\"products\"") && message.contains("held by"), "\(message)")
        switch kind {
        case .sqlite: #expect(message.contains("pid \(first.pid), watch products"), "\(message)")
        case .postgres: #expect(message.contains("listsync sink products"), "\(message)")
        }
        if kind == .sqlite {
            // The same database through a symbolic link is the same table: refused as well.
            let link = harness.path("link.sqlite")
            #expect(symlink(harness.path("sink.sqlite"), link) == 0)
            let linked = try Self.sink(harness, kind, SQLiteTestDatabase(path: link), log: "linked")
            defer { linked.send(SIGKILL) }
            #expect(try await linked.waitForExit(timeout: .seconds(10)) == 1)
            let refusal = readFile(harness.path("linked.err"))
            #expect(refusal.contains("pid \(first.pid), watch products"), "\(refusal)")
        }
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the first sink follows the file") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        #expect(first.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }
}
