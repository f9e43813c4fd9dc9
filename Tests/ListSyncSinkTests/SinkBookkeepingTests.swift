import Glibc
import ListFormats
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// The bookkeeping tables are keyed by watch and table: two sinks of one watch, each with its
/// own `--table`, keep their cursors and sections apart, and bookkeeping written by a version
/// that keyed them by watch alone is rekeyed without a snapshot.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SinkBookkeepingTests {
    /// Whether `table` holds the file of `watch` (the first watch's by default), in the file's
    /// order: a sectioned list with ``SinkBehaviourTests/productColumns``.
    static func tableEqualsFile(
        _ harness: EndToEndHarness, _ database: any SinkTestDatabase, _ table: String, watch: EndToEndHarness.Watch? = nil
    ) async throws -> Bool {
        let watch = watch ?? harness.watches[0]
        guard let expected = harness.document(watch.file) else { return false }
        let columns = SinkBehaviourTests.productColumns
        let select = SinkTables.orderedSelect(columns, table: table, watch: watch.name, sectioned: true, collate: database.orderCollation)
        guard let rows = try? await database.query(select) else { return false }
        return SinkTables.csvDocument(rows, columns: columns, sectioned: true) == expected
    }

    /// Waits until each of `tables` equals the file, printing the sink's log (`LOG.err`) if not.
    static func expectFilled(_ harness: EndToEndHarness, _ database: any SinkTestDatabase, _ tables: [String], logs: [String]) async throws {
        for (table, log) in zip(tables, logs) {
            do {
                try await eventually("\(table) equals the file", timeout: .seconds(60)) { try await Self.tableEqualsFile(harness, database, table) }
            } catch {
                Issue.record("\(error): \(readFile(harness.path(log + ".err")))")
                throw error
            }
        }
    }

    /// Two `--table` sinks of one sectioned watch started at the same moment both take their
    /// first snapshot (no collision on `listsync_sections`), follow a change, and once restarted
    /// each resumes from its own cursor rather than taking a snapshot again.
    @Test(arguments: SinkTestDatabaseKind.allCases) func twoTablesOfOneWatch(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let database = try await kind.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let tables = ["first", "second"]
        var sinks = try tables.map { try SinkOwnershipTests.sink(harness, kind, database, ["--table", $0], log: $0) }
        defer { sinks.forEach { $0.send(SIGKILL) } }
        try await Self.expectFilled(harness, database, tables, logs: tables)
        for (sink, table) in zip(sinks, tables) { #expect(sink.exitStatus == nil, "\(readFile(harness.path(table + ".err")))") }
        #expect(try await database.query("SELECT count(*) FROM listsync_cursors WHERE watch = 'products'") == [["2"]])

        for sink in sinks {
            sink.send(SIGKILL)
            _ = try await sink.waitForExit()
        }
        try await harness.save(ProductVersions.csv(1))
        let again = tables.map { $0 + "-again" }
        sinks = try zip(tables, again).map { try SinkOwnershipTests.sink(harness, kind, database, ["--table", $0.0], log: $0.1) }
        try await Self.expectFilled(harness, database, tables, logs: again)
        for log in again {
            let text = readFile(harness.path(log + ".err"))
            #expect(text.contains(": resuming") && !text.contains("table replaced"), "\(text)")
        }
    }

    /// Bookkeeping as the previous version wrote it (`listsync_cursors` keyed by watch,
    /// `listsync_sections` by watch and position, no table name) is rekeyed when a sink starts:
    /// the sink resumes from the cursor it finds there and follows the next change.
    @Test(arguments: SinkTestDatabaseKind.allCases) func bookkeepingKeyedByWatchAloneIsRekeyed(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let database = try await kind.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let first = try SinkOwnershipTests.sink(harness, kind, database)
        try await Self.expectFilled(harness, database, ["products"], logs: ["sink"])
        first.send(SIGKILL)
        _ = try await first.waitForExit()

        switch kind {
        case .postgres:
            _ = try await database.query(
                """
                ALTER TABLE listsync_cursors DROP CONSTRAINT listsync_cursors_pkey, ADD PRIMARY KEY (watch);
                ALTER TABLE listsync_sections DROP CONSTRAINT listsync_sections_pkey, DROP COLUMN table_name, ADD PRIMARY KEY (watch, position);
                """)
        case .sqlite:
            try SQLiteDatabase(path: try #require(database as? SQLiteTestDatabase).path).execute(
                """
                CREATE TABLE old_cursors (
                  watch TEXT PRIMARY KEY, epoch TEXT NOT NULL, seq INTEGER NOT NULL, digest TEXT NOT NULL,
                  updated_at TEXT NOT NULL, table_name TEXT NOT NULL, columns TEXT NOT NULL);
                INSERT INTO old_cursors SELECT watch, epoch, seq, digest, updated_at, table_name, columns FROM listsync_cursors;
                CREATE TABLE old_sections (
                  watch TEXT NOT NULL, position INTEGER NOT NULL, section TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (watch, position));
                INSERT INTO old_sections SELECT watch, position, section, hash FROM listsync_sections;
                DROP TABLE listsync_cursors;
                DROP TABLE listsync_sections;
                ALTER TABLE old_cursors RENAME TO listsync_cursors;
                ALTER TABLE old_sections RENAME TO listsync_sections;
                """)
        }
        #expect(try await database.query("SELECT count(*) FROM listsync_cursors") == [["1"]])

        try await harness.save(ProductVersions.csv(1))
        let again = try SinkOwnershipTests.sink(harness, kind, database, log: "again")
        defer { again.send(SIGKILL) }
        try await Self.expectFilled(harness, database, ["products"], logs: ["again"])
        let log = readFile(harness.path("again.err"))
        #expect(log.contains(": resuming") && !log.contains("table replaced") && again.exitStatus == nil, "\(log)")
        #expect(try await database.query("SELECT table_name FROM listsync_sections WHERE watch = 'products' ORDER BY position LIMIT 1") == [["products"]])
    }
}
