import Glibc
import ListFormats
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// The kinds of database the sink tests run against.
enum SinkTestDatabaseKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { self.rawValue }

    /// A fresh database of this kind for `harness`'s sink; the server (PostgreSQL) lives as long
    /// as the returned database.
    func make(_ harness: EndToEndHarness) async throws -> any SinkTestDatabase {
        switch self {
        case .sqlite: SQLiteTestDatabase(path: harness.path("sink.sqlite"))
        case .postgres: PostgresTestDatabase(server: try await PostgresServer())
        }
    }
}

/// What a sink does besides following edits: JSON tables, `--verify`, a removed watch.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SinkBehaviourTests {
    /// Starts `listsync sink KIND WATCH …` on `database`.
    static func startSink(
        _ harness: EndToEndHarness, _ kind: SinkTestDatabaseKind, _ database: any SinkTestDatabase, _ options: [String]
    ) throws -> ChildProcess {
        try ChildProcess(
            try EndToEndHarness.binary("listsync"),
            ["sink", kind.rawValue, harness.watches[0].name, "--socket", harness.socketPath] + options + database.sinkArguments,
            outputPath: harness.path("sink.out"), errorPath: harness.path("sink.err"))
    }

    static func json(_ records: [(Int, String, Int)]) -> String {
        "[" + records.map { #"{"id":\#($0.0),"name":"\#($0.1)","price":\#($0.2),"tags":["t\#($0.0 % 3)"]}"# }.joined(separator: ",\n") + "]\n"
    }

    /// A JSON watch: the key and a projected member get columns, the record is stored whole
    /// (`json` in PostgreSQL), and the rows follow every save in order.
    @Test(arguments: SinkTestDatabaseKind.allCases) func aJSONWatchWithProjectedColumns(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness(watches: [.init(name: "stock", file: "stock.json", key: ["id"], sectionBy: nil)])
        let database = try await kind.make(harness)
        var records = (1...30).map { ($0, "item \($0)", $0 * 10) }
        try FileContent.write(Self.json(records), to: harness.watched)
        try await harness.startDaemon()
        // `--verify` reads each record back (from `json` in PostgreSQL) and hashes it: the same
        // hashes as the daemon's, so it never resynchronizes.
        let sink = try Self.startSink(harness, kind, database, ["--key", "id", "--column", "name", "--verify"])
        defer { sink.send(SIGKILL) }
        for version in 0..<6 {
            if version > 0 {
                records.insert((100 + version, "new \(version)", version), at: 0)
                records.remove(at: 10)
                records[5].1 = "renamed \(version)"
                records.swapAt(2, 20)
                try await harness.save(Self.json(records))
            }
            let expected = try #require(try ListReader(options: ReadOptions(format: .json)).read(bytes: Array(Self.json(records).utf8)).document)
            try await eventually("the table holds version \(version)") {
                // Until the sink has created the table, the query fails: not yet.
                guard let rows = try? await database.query(
                    SinkTables.orderedSelect(["listsync_record", "id", "name"], table: "stock", watch: "stock", sectioned: false)),
                    let stored = try? SinkTables.jsonRecords(rows)
                else { return false }
                // Compare canonical forms.
                guard stored.map(\.contentHash) == expected.allRecords.map(\.contentHash) else { return false }
                return rows.map { [$0[1], $0[2]] } == records.map { [String($0.0), $0.1] }
            }
        }
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
        #expect(!readFile(harness.path("sink.err")).contains("resynchronizing"), "\(readFile(harness.path("sink.err")))")
    }

    /// The columns of ``ProductVersions``.
    static let productColumns = ProductVersions.header.split(separator: ",").map(String.init)

    /// A products sink on version 0 of ``ProductVersions``: daemon and sink started, the table
    /// holding the first snapshot.
    static func productsSink(
        _ harness: EndToEndHarness, _ kind: SinkTestDatabaseKind, _ options: [String]
    ) async throws -> (database: any SinkTestDatabase, sink: ChildProcess) {
        let database = try await kind.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, kind, database, options)
        do {
            try await eventually("the snapshot is in the table") { try await self.tableEqualsFile(harness, database) }
        } catch {
            sink.send(SIGKILL)
            throw error
        }
        return (database, sink)
    }

    /// Whether the products table equals the watched file (not yet when it does not exist).
    static func tableEqualsFile(_ harness: EndToEndHarness, _ database: any SinkTestDatabase) async throws -> Bool {
        guard let expected = harness.document(harness.watches[0].file) else { return false }
        return (try? await SinkCrashTests.table(database, columns: self.productColumns)) == expected
    }

    /// `--verify` notices a table changed behind the sink's back (a row deleted), logs it and
    /// takes a snapshot, which repairs the table.
    @Test(arguments: SinkTestDatabaseKind.allCases) func verifyRepairsATamperedTable(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await Self.productsSink(harness, kind, ["--verify"])
        defer { sink.send(SIGKILL) }
        _ = try await database.query("DELETE FROM products WHERE sku = 'S1'")
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the sink resynchronizes") { readFile(harness.path("sink.err")).contains("resynchronizing (1 so far)") }
        try await eventually("the table equals the file again") { try await Self.tableEqualsFile(harness, database) }
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }

    /// `--verify` recomputes each row's hash from the values in its columns: a value changed
    /// behind the sink's back, its `listsync_hash` left as it was, is found after the next commit
    /// (which does not touch that row), counted, and repaired by a snapshot.
    @Test(arguments: SinkTestDatabaseKind.allCases) func verifyFindsAValueChangedBehindTheSinksBack(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await Self.productsSink(harness, kind, ["--verify"])
        defer { sink.send(SIGKILL) }
        _ = try await database.query("UPDATE products SET name = 'changed by hand' WHERE sku = 'S1'")
        try await harness.save(ProductVersions.csv(0) + "S99,item 99,1.00,fruit\n")
        try await eventually("the sink resynchronizes") { readFile(harness.path("sink.err")).contains("resynchronizing (1 so far)") }
        try await eventually("the table equals the file again") { try await Self.tableEqualsFile(harness, database) }
        let rows = try await database.query("SELECT name FROM products WHERE sku = 'S1'")
        #expect(rows == [["item 1"]])
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }

    /// An invalid file leaves the table at the last good version; a watch removed from the
    /// daemon's configuration is reported, the sink exits 0 and the table stays.
    @Test func invalidThenRemoved() async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await Self.productsSink(harness, .sqlite, [])
        defer { sink.send(SIGKILL) }
        let columns = Self.productColumns
        let good = try #require(harness.document(harness.watches[0].file))

        try await harness.save(ProductVersions.invalid)
        try await eventually("the sink reports the invalid file") { readFile(harness.path("sink.err")).contains("products is invalid") }
        #expect(try await SinkCrashTests.table(database, columns: columns) == good)

        let configuration = harness.path("listsyncd.toml")
        try FileContent.write(readFile(configuration).replacingAll("\"products\"", with: "\"renamed\""), to: configuration)
        harness.daemon?.send(SIGHUP)
        #expect(try await sink.waitForExit() == 0)
        #expect(readFile(harness.path("sink.err")).contains("products is removed"))
        #expect(try await SinkCrashTests.table(database, columns: columns) == good)
    }
}

extension SinkBehaviourTests {
    /// A reload that drops `section_by` starts a new epoch; the sink recreates its table without
    /// the section column from the snapshot that follows.
    @Test func aReloadWithoutSectionsRecreatesTheTable() async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await Self.productsSink(harness, .sqlite, [])
        defer { sink.send(SIGKILL) }
        let columns = Self.productColumns

        let configuration = harness.path("listsyncd.toml")
        try FileContent.write(readFile(configuration).replacingAll("section_by = \"category\"\n", with: ""), to: configuration)
        harness.daemon?.send(SIGHUP)
        let linear = try ListReader(options: ReadOptions(format: ListFormat(path: harness.watched) ?? .json, key: ["sku"])).read(contentsOfFile: harness.watched).document
        try await eventually("the table is linear") {
            let select = SinkTables.orderedSelect(columns, table: "products", watch: "products", sectioned: false)
            guard let rows = try? await database.query(select) else { return false }
            return SinkTables.csvDocument(rows, columns: columns, sectioned: false) == linear
        }
        #expect(readFile(harness.path("sink.err")).contains("recreating the table"))
        #expect(try await database.query("SELECT count(*) FROM listsync_sections WHERE watch = 'products'") == [["1"]])
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }
}

extension SinkBehaviourTests {
    /// `--schema` and `--table` take any names: the table and the bookkeeping tables are made in
    /// that schema, created when missing.
    @Test func postgresSchemaAndTableOfAnyName() async throws {
        let harness = try EndToEndHarness()
        let server = try await PostgresServer()
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(
            harness, .postgres, PostgresTestDatabase(server: server), ["--key", "sku", "--schema", "Stock \"A\"", "--table", "my table"])
        defer { sink.send(SIGKILL) }
        let rows = try #require(harness.document(harness.watches[0].file)?.allRecords.count)
        try await eventually("the table is in the schema") {
            (try? await server.query(#"SELECT count(*) FROM "Stock ""A"""."my table""#)) == [[String(rows)]]
        }
        #expect(try await server.query(#"SELECT table_name FROM "Stock ""A""".listsync_cursors WHERE watch = 'products'"#) == [["my table"]])
        #expect(try await server.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'listsync%'") == [["0"]])
    }
}

extension String {
    /// The string with every `target` replaced by `replacement`.
    func replacingAll(_ target: String, with replacement: String) -> String {
        self.split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
