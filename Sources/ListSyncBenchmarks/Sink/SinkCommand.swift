import ArgumentParser
import Foundation
import ListSyncSink

extension ListSyncBenchmarks {
    struct Sink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sink",
            abstract: "The SQLite and PostgreSQL sinks against deleting and re-inserting the whole list per save.",
            discussion: """
                Loads a list of --rows rows into a table, then applies one update, one insertion at the \
                top and one move as changesets; the baseline replaces a second table's contents with \
                each version in one transaction. SQLite in a file under --directory; PostgreSQL only \
                with --postgres-url (a server you started).
                """
        )

        @Option(help: "Rows of the list.")
        var rows = 1_000_000

        @Option(help: "Where to put the SQLite database.")
        var directory = "/tmp/listsync-sink-benchmark"

        @Option(help: "A PostgreSQL database to measure too (postgres://…).")
        var postgresURL: String?

        func run() async throws {
            let benchmark = SinkBenchmark(rows: self.rows)
            var results: [SinkBenchmark.Result] = []
            try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
            let path = self.directory + "/sink.sqlite"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            func layout(_ table: String) -> SinkTableLayout {
                SinkTableLayout(table: table, kind: .csv, sectioned: false, key: ["sku"])
            }
            print("- SQLite, \(self.rows) rows")
            results.append(
                try await benchmark.measure(
                    database: "SQLite",
                    store: try SQLiteSinkStore(path: path, watch: "products", layout: layout("products")),
                    baseline: try SQLiteSinkStore(path: path, watch: "baseline", layout: layout("baseline"))))
            if let url = self.postgresURL {
                print("- PostgreSQL, \(self.rows) rows")
                let settings = try PostgresSettings(url: url, environment: ProcessInfo.processInfo.environment)
                results.append(
                    try await benchmark.measure(
                        database: "PostgreSQL",
                        store: PostgresSinkStore(settings: settings, watch: "products", layout: layout("products")),
                        baseline: PostgresSinkStore(settings: settings, watch: "baseline", layout: layout("baseline"))))
            }
            print()
            print(SinkBenchmark.tables(results))
        }
    }
}
