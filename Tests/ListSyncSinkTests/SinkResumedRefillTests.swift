import Glibc
import ListFormats
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

/// A changeset that touches most rows refills the table also when the sink resumed from its
/// cursor (after a restart) and so holds no row values: the untouched rows are kept by the
/// database, in the changeset's transaction.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SinkResumedRefillTests {
    @Test(arguments: SinkTestDatabaseKind.allCases) func aResumedSinkRefillsTheTable(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let database = try await kind.make(harness)
        let rows = 1500
        func lines(price: Int) -> [String] { (0..<rows).map { "B\($0),item \($0),\(price).00,bulk" } }
        func version(_ lines: [String]) -> String { ([ProductVersions.header] + lines).joined(separator: "\n") + "\n" }
        try FileContent.write(version(lines(price: 1)), to: harness.watched)
        try await harness.startDaemon()
        let first = try SinkOwnershipTests.sink(harness, kind, database)
        try await eventually("the snapshot is in the table") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        _ = try await database.query("CREATE VIEW products_skus AS SELECT sku FROM products")
        first.send(SIGTERM)
        _ = try await first.waitForExit()

        let sink = try SinkOwnershipTests.sink(harness, kind, database, log: "resumed")
        defer { sink.send(SIGKILL) }
        try await eventually("the sink resumed from its cursor") { readFile(harness.path("resumed.err")).contains(": resuming") }

        // Every row updated in place.
        try await harness.save(version(lines(price: 2)))
        try await eventually("the table equals the file") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        var log = readFile(harness.path("resumed.err"))
        #expect(log.contains("table refilled by the changeset"), "\(log)")

        // Every row moved (the order reversed), some deleted, some inserted, one updated.
        var changed = Array(lines(price: 2).reversed().dropFirst(10))
        changed[7] = "B\(rows - 18),item changed,9.00,bulk"
        changed += (0..<5).map { "N\($0),new \($0),1.00,new" }
        try await harness.save(version(changed))
        try await eventually("the table equals the file") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        log = readFile(harness.path("resumed.err"))
        #expect(log.components(separatedBy: "table refilled by the changeset").count == 3, "\(log)")
        #expect(try await database.query("SELECT count(*) FROM products_skus") == [[String(rows - 10 + 5)]])
        #expect(!log.contains("resynchronizing") && !log.contains("replaced by the snapshot") && sink.exitStatus == nil, "\(log)")
    }

    /// A row deleted by hand is found by a resumed sink's refill (it keeps one row fewer than it
    /// knows): a divergence, repaired by a snapshot, never a table short of a row.
    @Test(arguments: SinkTestDatabaseKind.allCases) func aRefillFindsARowDeletedByHand(kind: SinkTestDatabaseKind) async throws {
        let harness = try EndToEndHarness()
        let database = try await kind.make(harness)
        let lines = (0..<1500).map { "B\($0),item \($0),1.00,bulk" }
        func version(_ lines: [String]) -> String { ([ProductVersions.header] + lines).joined(separator: "\n") + "\n" }
        try FileContent.write(version(lines), to: harness.watched)
        try await harness.startDaemon()
        let first = try SinkOwnershipTests.sink(harness, kind, database)
        try await eventually("the snapshot is in the table") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        first.send(SIGTERM)
        _ = try await first.waitForExit()
        let sink = try SinkOwnershipTests.sink(harness, kind, database, log: "resumed")
        defer { sink.send(SIGKILL) }
        try await eventually("the sink resumed from its cursor") { readFile(harness.path("resumed.err")).contains(": resuming") }
        _ = try await database.query("DELETE FROM products WHERE sku = 'B700'")

        // Every row moved: all of them kept by the refill.
        try await harness.save(version(lines.reversed()))
        try await eventually("the table equals the file") { try await SinkBehaviourTests.tableEqualsFile(harness, database) }
        let log = readFile(harness.path("resumed.err"))
        #expect(log.contains("1499 rows kept where the sink knows 1500") && log.contains("resynchronizing"), "\(log)")
        #expect(sink.exitStatus == nil, "\(log)")
    }
}
