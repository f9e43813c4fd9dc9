import ArgumentParser
import Foundation

extension ListSyncBenchmarks {
    struct Incremental: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "incremental",
            abstract: "IncrementalListReader against ListReader and `wc -l` on a 1M-row CSV (issue 19 item 1).",
            discussion: """
                Writes the latency benchmark's products CSV (--rows rows, key sku), then times in one run: \
                `wc -l` of the file (a process, the file in the page cache); read(2) of the file into a \
                fresh array; ListReader reading it whole; IncrementalListReader reading it first (no chunks \
                kept, a watch's first start; in two halves at once, and on one thread); IncrementalListReader reading a version with \
                one row changed after the one before (alternating two versions, so that every timed read \
                is a one-row edit); and IncrementalListReader reading the file with 1,000 rows appended \
                after the file itself; then the digest of a version with one row changed, protocol 1's \
                (SHA-256 of every record hash) and protocol 2's (the tree updated from the last version's). \
                Reads start from bytes in memory; medians and fastest runs, with \
                each median's ratio to `wc -l`'s.
                """
        )

        @Option(help: "Rows of the file.")
        var rows = 1_000_000

        @Option(help: "Rows appended in the append workload.")
        var appendedRows = 1_000

        @Option(help: "Timed runs of each workload.")
        var runs = 21

        @Option(help: "Where to write the file (about 50 MB for 1M rows).")
        var directory = "/tmp/listsync-incremental-benchmark"

        func run() throws {
            let benchmark = try IncrementalBenchmark(
                directory: URL(fileURLWithPath: directory), rows: rows, appendedRows: appendedRows)
            print("- \(rows) rows, \(benchmark.fileSize.mebibytes), \(runs) runs of each workload")
            let results = try benchmark.measure(runs: runs)
            print()
            print(IncrementalBenchmark.table(results).markdown)
        }
    }
}
