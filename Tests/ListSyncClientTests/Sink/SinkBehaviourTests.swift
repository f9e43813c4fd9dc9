import Glibc
import ListFormats
import Testing

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
    /// (`jsonb` in PostgreSQL), and the rows follow every save in order.
    @Test(arguments: SinkTestDatabaseKind.allCases) func aJSONWatchWithProjectedColumns(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness(watches: [.init(name: "stock", file: "stock.json", key: ["id"], sectionBy: nil)])
        let database = try await kind.make(harness)
        var records = (1...30).map { ($0, "item \($0)", $0 * 10) }
        try FileContent.write(Self.json(records), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, kind, database, ["--key", "id", "--column", "name"])
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
                // PostgreSQL's jsonb orders members its own way: compare canonical forms.
                guard stored.map(\.contentHash) == expected.allRecords.map(\.contentHash) else { return false }
                return rows.map { [$0[1], $0[2]] } == records.map { [String($0.0), $0.1] }
            }
        }
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }

    /// `--verify` notices a table changed behind the sink's back (a row's stored hash), logs it
    /// and takes a snapshot, which repairs the table.
    @Test(arguments: SinkTestDatabaseKind.allCases) func verifyRepairsATamperedTable(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let database = try await kind.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, kind, database, ["--key", "sku", "--verify"])
        defer { sink.send(SIGKILL) }
        let columns = ProductVersions.header.split(separator: ",").map(String.init)
        func tableEqualsFile() async throws -> Bool {
            guard let expected = harness.document(harness.watches[0].file) else { return false }
            return (try? await SinkCrashTests.table(database, columns: columns)) == expected
        }
        try await eventually("the snapshot is in the table") { try await tableEqualsFile() }
        _ = try await database.query("DELETE FROM products WHERE sku = 'S1'")
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the sink resynchronizes") { readFile(harness.path("sink.err")).contains("resynchronizing (1 so far)") }
        try await eventually("the table equals the file again") { try await tableEqualsFile() }
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }

    /// An invalid file leaves the table at the last good version; a watch removed from the
    /// daemon's configuration is reported, the sink exits 0 and the table stays.
    @Test func invalidThenRemoved() async throws {
        let harness = try EndToEndHarness()
        let database = try await SinkTestDatabaseKind.sqlite.make(harness)
        try FileContent.write(ProductVersions.csv(0), to: harness.watched)
        try await harness.startDaemon()
        let sink = try Self.startSink(harness, .sqlite, database, ["--key", "sku"])
        defer { sink.send(SIGKILL) }
        let columns = ProductVersions.header.split(separator: ",").map(String.init)
        let good = try #require(harness.document(harness.watches[0].file))
        try await eventually("the snapshot is in the table") { (try? await SinkCrashTests.table(database, columns: columns)) == good }

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

extension String {
    /// The string with every `target` replaced by `replacement`.
    func replacingAll(_ target: String, with replacement: String) -> String {
        self.split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
