import Glibc
import ListFormats
import ListSyncProtocol
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// A database a sink under test writes to, as the test sees it: how to start the sink on it,
/// how to audit its cursor writes, and how to read the table back.
protocol SinkTestDatabase {
    /// The `listsync sink …` arguments after the socket option's place: database and table.
    var sinkArguments: [String] { get }
    /// Creates the bookkeeping tables and an audit table filled by a trigger on every write of
    /// `listsync_cursors`, so that the test sees every cursor ever committed.
    func installAudit() async throws
    /// The rows of `sql`, every column as text.
    func query(_ sql: String) async throws -> [[String?]]
    /// How `ORDER BY` must compare order keys (PostgreSQL: byte order).
    var orderCollation: String { get }
}

extension SinkTestDatabase {
    /// The cursors the audit saw committed, in commit order.
    func auditedCursors() async throws -> [(epoch: String, seq: UInt64)] {
        try await self.query("SELECT epoch, seq FROM listsync_audit ORDER BY id").map { ($0[0] ?? "", UInt64($0[1] ?? "") ?? 0) }
    }

    /// The watch's cursor in `listsync_cursors`.
    func storedCursor(_ watch: String) async throws -> Cursor? {
        try await self.query("SELECT epoch, seq FROM listsync_cursors WHERE watch = '\(watch)'").first.flatMap { row in
            guard let epoch = row[0].flatMap(Epoch.init), let seq = row[1].flatMap(UInt64.init) else { return nil }
            return Cursor(epoch: epoch, seq: seq)
        }
    }
}

/// A SQLite file.
struct SQLiteTestDatabase: SinkTestDatabase {
    let path: String

    var sinkArguments: [String] { ["--database", self.path] }
    var orderCollation: String { "" }

    func installAudit() async throws {
        let database = try SQLiteDatabase(path: self.path)
        for statement in SinkStatements(layout: SinkTableLayout(table: "-", kind: .csv, sectioned: false), dialect: .sqlite).bookkeeping {
            try database.execute(statement)
        }
        try database.execute(
            """
            CREATE TABLE listsync_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, epoch TEXT, seq INTEGER);
            CREATE TRIGGER audit_insert AFTER INSERT ON listsync_cursors BEGIN INSERT INTO listsync_audit (epoch, seq) VALUES (new.epoch, new.seq); END;
            CREATE TRIGGER audit_update AFTER UPDATE ON listsync_cursors BEGIN INSERT INTO listsync_audit (epoch, seq) VALUES (new.epoch, new.seq); END;
            """)
    }

    func query(_ sql: String) async throws -> [[String?]] {
        try SinkTables.sqlite(self.path, sql)
    }
}

/// Sinks killed with SIGKILL at random moments of a stream of random edits resume exactly where
/// their table is: nothing skipped, nothing applied twice.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SinkCrashTests {
    /// How many edits: 150 by default (about a minute), `LISTSYNC_SINK_EDITS` for more.
    static var editCount: Int {
        getenv("LISTSYNC_SINK_EDITS").flatMap { Int(String(cString: $0)) } ?? 150
    }

    /// Headers the random versions switch between: a column renamed, one removed.
    static let headers = [["sku", "name", "price", "category"], ["sku", "title", "price", "category"], ["sku", "title", "category"]]

    /// A random version: some of 40 products, in random order, in a random subset of categories
    /// (so sections come and go), with the header `header`.
    static func version(_ header: [String], using generator: inout SplitMix) -> String {
        let categories = ["fruit", "veg", "dairy", "bakery", "fish"].filter { _ in generator.next() % 3 != 0 }
        var rows: [String] = []
        for sku in 0..<40 where generator.next() % 4 != 0 {
            let category = categories.isEmpty ? "misc" : categories[Int(generator.next() % UInt64(categories.count))]
            let fields = header.map { column -> String in
                switch column {
                case "sku": "S\(sku)"
                case "category": category
                case "price": "\(generator.next() % 20).\(generator.next() % 10)0"
                default: "item \(sku)\(generator.next() % 5 == 0 ? " (new)" : "")"
                }
            }
            rows.append(fields.joined(separator: ","))
        }
        rows.shuffle(using: &generator)
        return ([header.joined(separator: ",")] + rows).joined(separator: "\n") + "\n"
    }

    /// Runs the stream against `database` and checks the end state; `disrupt` is called now and
    /// then to do something to the database server (nothing, for SQLite).
    static func killNineStream(
        _ harness: EndToEndHarness, _ database: some SinkTestDatabase, seed: UInt64, disrupt: (() async throws -> Void)? = nil
    ) async throws {
        var generator = SplitMix(seed: seed)
        try await database.installAudit()
        var header = headers[0]
        try FileContent.write(self.version(header, using: &generator), to: harness.watched)
        try await harness.startDaemon()

        var starts = 0
        func startSink() throws -> ChildProcess {
            starts += 1
            return try ChildProcess(
                try EndToEndHarness.binary("listsync"),
                ["sink", database is SQLiteTestDatabase ? "sqlite" : "postgres", "products", "--socket", harness.socketPath, "--key", "sku"]
                    + database.sinkArguments,
                outputPath: harness.path("sink.out"), errorPath: harness.path("sink.err"))
        }
        var sink = try startSink()
        defer { sink.send(SIGKILL) }
        var kills = 0
        // After a disruption, the sink is not killed until it has committed a version written
        // since: so it meets the disruption, rather than a sink started after it.
        var mustCommitSinceDisruption = false
        var cursorAtDisruption: Cursor?
        for edit in 0..<self.editCount {
            if generator.next() % 12 == 0 { header = headers[Int(generator.next() % UInt64(headers.count))] }
            let strategy = SaveStrategy.allCases[Int(generator.next() % UInt64(SaveStrategy.allCases.count))]
            let isInvalid = generator.next() % 40 == 0
            let text = isInvalid ? ProductVersions.invalid : self.version(header, using: &generator)
            try await strategy.save(text, to: harness.watched, scratch: harness.directory)
            if let status = sink.exitStatus {
                Issue.record("the sink exited \(status) at edit \(edit): \(readFile(harness.path("sink.err")))")
                return
            }
            if mustCommitSinceDisruption, !isInvalid {
                do {
                    try await eventually("the sink commits a version after the disruption", timeout: .seconds(60)) {
                        guard let current = try await harness.watchSummaries().first?.cursor, current != cursorAtDisruption else { return false }
                        return try await database.storedCursor("products") == current
                    }
                } catch {
                    let stored = try? await database.storedCursor("products")
                    let current = try? await harness.watchSummaries().first?.cursor
                    Issue.record("\(error); the table at \(String(describing: stored)), the daemon at \(String(describing: current)), at the disruption \(String(describing: cursorAtDisruption)); the sink said: \(readFile(harness.path("sink.err")))")
                    return
                }
                mustCommitSinceDisruption = false
            }
            if !mustCommitSinceDisruption, generator.next() % 5 == 0 {
                try await Task.sleep(for: .milliseconds(Int(generator.next() % 200)))
                sink.send(SIGKILL)
                _ = try await sink.waitForExit()
                kills += 1
                sink = try startSink()
            }
            if let disrupt, generator.next() % 50 == 0 {
                try await disrupt()
                mustCommitSinceDisruption = true
                cursorAtDisruption = try await harness.watchSummaries().first?.cursor
            }
            try await Task.sleep(for: .milliseconds(Int(generator.next() % 120)))
        }
        // The last version is valid, so that the table can end equal to the file.
        try await SaveStrategy.writeTemporaryAndRename.save(self.version(header, using: &generator), to: harness.watched, scratch: harness.directory)

        try await eventually("the table equals the file", timeout: .seconds(60)) {
            guard let expected = harness.document(harness.watches[0].file),
                let current = try await harness.watchSummaries().first?.cursor,
                try await database.storedCursor("products") == current
            else { return false }
            return try await self.table(database, columns: header) == expected
        }
        #expect(kills > 0 && sink.exitStatus == nil, "killed \(kills) times; \(readFile(harness.path("sink.err")))")

        // Every commit after the first snapshot is the next cursor of the same epoch: none
        // applied twice (a repeated seq), none skipped (a gap).
        let audited = try await database.auditedCursors()
        let final = try await database.storedCursor("products")
        #expect(audited.last.map { Cursor(epoch: Epoch($0.epoch) ?? Epoch(rawValue: 0), seq: $0.seq) } == final)
        #expect(Set(audited.map(\.epoch)).count == 1, "one epoch: \(audited.count) commits")
        #expect(audited.count >= self.editCount / 10, "the sink committed \(audited.count) versions of \(self.editCount) edits")
        let seqs = audited.map(\.seq)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "consecutive: \(seqs)")
    }

    /// The table as a document, rows in `ORDER BY` order.
    static func table(_ database: some SinkTestDatabase, columns: [String]) async throws -> ListDocument {
        let select = SinkTables.orderedSelect(columns, table: "products", watch: "products", sectioned: true, collate: database.orderCollation)
        return SinkTables.csvDocument(try await database.query(select), columns: columns, sectioned: true)
    }

    @Test func sqliteSinkKilledAtRandomMoments() async throws {
        let harness = try EndToEndHarness()
        try await Self.killNineStream(harness, SQLiteTestDatabase(path: harness.path("sink.sqlite")), seed: 13)
    }
}

extension SinkCrashTests {
    /// The same stream into a real PostgreSQL server.
    @Test func postgresSinkKilledAtRandomMoments() async throws {
        let server = try await PostgresServer()
        let harness = try EndToEndHarness()
        try await Self.killNineStream(harness, PostgresTestDatabase(server: server), seed: 21)
    }

    /// The same stream with PostgreSQL itself restarted (`pg_ctl restart -m immediate`) now and
    /// then: the sink reconnects and loses or repeats nothing.
    @Test func postgresRestartedMidStream() async throws {
        let server = try await PostgresServer()
        let harness = try EndToEndHarness()
        var restarts = 0
        try await Self.killNineStream(harness, PostgresTestDatabase(server: server), seed: 34) {
            try await server.restartImmediately()
            restarts += 1
        }
        #expect(restarts > 0)
        #expect(readFile(harness.path("sink.err")).contains("database unavailable"), "the sink noticed a restart")
    }
}
