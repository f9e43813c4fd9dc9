import Foundation
import ListFormats
import ListSyncClient
import ListSyncProtocol
import ListSyncSink

/// The sinks against the obvious baseline — delete every row and insert the whole list again,
/// in one transaction per save — on the same database in the same run.
///
/// Measured in process, without the daemon: the sink's own part of "file saved → committed"
/// (applying the changeset to its rows in memory, checking the digest, committing), which adds
/// to the daemon's latency (the latency benchmark).
struct SinkBenchmark {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One database's figures.
    struct Result {
        var database: String
        var rows: Int
        var initialLoad: Double
        var oneRowSink: Double
        var oneRowBaseline: Double
        /// Rows written by the sink for: one update, one insertion at the top, one move.
        var written: [(String, Int)]
        /// A changeset that changes every row's price, committed as a refill.
        var everyRow: Double
        /// Whether it was (``SinkTable/refills(touched:rows:)``).
        var everyRowRefilled: Bool
    }

    let rows: Int

    /// Runs the workloads on the tables `store` and `baseline` (two tables of one database).
    func measure(database: String, store: any SinkStore, baseline: any SinkStore) async throws -> Result {
        var versions = SinkVersions(rows: self.rows)
        var list = try versions.parsed()
        var seq: UInt64 = 0
        var mirror = try SinkVersions.mirror(of: list, seq: seq)
        let table = SinkTable(store: store)
        let initialLoad = try await Self.time { try await table.replace(with: mirror, at: Cursor(epoch: SinkVersions.epoch, seq: seq)) }
        print("  \(database): initial load of \(self.rows) rows: \(initialLoad.milliseconds)")

        let baselineTable = SinkTable(store: baseline)
        var written: [(String, Int)] = []
        var oneRowSink = 0.0
        var oneRowBaseline = 0.0
        let middle = self.rows / 2
        let edits: [(String, (inout [String]) -> Void)] = [
            ("one update", { $0[middle] = "SKU\(middle),item number \(middle),1.5,category 0" }),
            ("one insertion at the top", { $0.insert("SKU-new,new item,2.0,category 1", at: 0) }),
            ("one move", { $0.insert($0.remove(at: middle + 1), at: 10) }),
        ]
        // The sink's changesets first, then the baseline's saves: the baseline's churn (two
        // million rows written per save) would otherwise slow the database under the sink.
        var saved: [(name: String, mirror: MirroredList, seq: UInt64)] = []
        for (name, edit) in edits {
            edit(&versions.lines)
            let next = try versions.parsed()
            seq += 1
            let changeset = SinkVersions.changeset(from: list, to: next, seq: seq)
            var rowsWritten = 0
            let sinkTime = try await Self.time { rowsWritten = try await table.apply(changeset).rows }
            print("  \(database): \(name): sink \(sinkTime.milliseconds), \(rowsWritten) rows")
            if name == "one update" { oneRowSink = sinkTime }
            written.append((name, rowsWritten))
            try mirror.apply(changeset)
            saved.append((name, mirror, seq))
            list = next
        }
        // Every row changed: the sink refills the table in the changeset's transaction.
        for index in versions.lines.indices { versions.lines[index] += "5" }
        let everyRowList = try versions.parsed()
        seq += 1
        let everyRowChangeset = SinkVersions.changeset(from: list, to: everyRowList, seq: seq)
        var everyRowMirror = mirror
        try everyRowMirror.apply(everyRowChangeset)
        var everyRowCommit: SinkTable.Commit?
        let everyRow = try await Self.time { everyRowCommit = try await table.apply(everyRowChangeset, mirror: everyRowMirror) }
        print("  \(database): every row changed: sink \(everyRow.milliseconds), \(everyRowCommit?.rows ?? 0) rows, refilled: \(everyRowCommit?.refilled ?? false), \(String(format: "%.2f", everyRow / initialLoad))× the initial load")
        for (name, mirror, seq) in saved {
            let baselineTime = try await Self.time {
                try await baselineTable.replace(with: mirror, at: Cursor(epoch: SinkVersions.epoch, seq: seq))
            }
            print("  \(database): \(name): baseline \(baselineTime.milliseconds)")
            if name == "one update" { oneRowBaseline = baselineTime }
        }
        return Result(
            database: database, rows: self.rows, initialLoad: initialLoad, oneRowSink: oneRowSink, oneRowBaseline: oneRowBaseline,
            written: written, everyRow: everyRow, everyRowRefilled: everyRowCommit?.refilled ?? false)
    }

    private static func time(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The figures as Markdown tables.
    static func tables(_ results: [Result]) -> String {
        var times = Table(header: [
            "database", "rows", "initial load", "one changed row: sink", "one changed row: baseline", "every row changed: sink (× initial load)",
        ])
        for result in results {
            times.rows.append([
                result.database, "\(result.rows)", result.initialLoad.milliseconds, result.oneRowSink.milliseconds,
                result.oneRowBaseline.milliseconds,
                "\(result.everyRow.milliseconds) (\(String(format: "%.2f", result.everyRow / result.initialLoad))×\(result.everyRowRefilled ? ", refilled" : ""))",
            ])
        }
        var written = Table(header: ["database", "changeset", "rows written: sink", "rows written: baseline"])
        for result in results {
            for (name, rows) in result.written {
                written.rows.append([result.database, name, "\(rows)", "\(2 * result.rows) (every row deleted and inserted)"])
            }
        }
        return times.markdown + "\n\n" + written.markdown
    }
}
