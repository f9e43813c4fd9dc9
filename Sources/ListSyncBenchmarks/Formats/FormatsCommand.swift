import ArgumentParser
import Foundation

extension ListSyncBenchmarks {
    struct Formats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "formats",
            abstract: "ListFormats against JSONSerialization and CSV.swift on generated files; `listsync diff` on 1M rows."
        )

        @Option(help: "List sizes: \(FormatsWorkload.Size.allCases.map(\.rawValue).joined(separator: ", ")).")
        var size: [String] = FormatsWorkload.Size.allCases.map(\.rawValue)

        @Option(help: "Timed reads per file for ListFormats (the median is reported).")
        var runs = 31

        @Option(help: "Timed reads per file for the baselines.")
        var baselineRuns = 3

        @Option(help: "Timed runs of `listsync diff`.")
        var diffRuns = 11

        @Flag(help: "Leave out the baselines (JSONSerialization, CSV.swift).")
        var skipBaselines = false

        @Option(help: "Where to write the generated files (about 600 MB for 1m).")
        var directory = "/tmp/listsync-formats-benchmark"

        @Option(help: "The listsync binary to time. Default: next to this benchmark.")
        var listsync: String?

        @Option(help: "The csv-diff command (PyPI `csv-diff`) to time against `listsync diff` on the 1M-row CSVs. Default: none.")
        var csvDiff: String?

        func run() throws {
            let sizes = try size.map { name in
                guard let size = FormatsWorkload.Size(rawValue: name) else { throw ValidationError("unknown size \(name)") }
                return size
            }
            let here = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
            let benchmark = FormatsBenchmark(
                runs: runs, baselineRuns: baselineRuns, diffRuns: diffRuns,
                directory: URL(fileURLWithPath: directory),
                listsync: listsync.map { URL(fileURLWithPath: $0) } ?? here.appendingPathComponent("listsync"), csvDiff: csvDiff)
            let readers = FormatsReader.allCases.filter { !skipBaselines || $0.isListFormats }
            for size in sizes {
                print("- \(size.rawValue): writing \(size.rowCount) rows to \(directory)")
                try benchmark.writeFiles(size)
            }
            // The diff's in-process steps run before any reader has left its heap behind here.
            let diff = sizes.contains(.rows1M) ? try benchmark.measureDiff() : []
            let reads = try sizes.flatMap { try benchmark.measureReads($0, readers: readers) }
            print()
            print(FormatsBenchmark.readTable(reads).markdown)
            if !diff.isEmpty {
                print()
                print(FormatsBenchmark.diffTable(diff).markdown)
                if diff.count > 2, let csvDiff = diff.first(where: { $0.step.hasPrefix("`csv-diff") }) {
                    // Median to median, against `listsync diff --format ndjson`.
                    print()
                    print("csv-diff ÷ listsync diff (ndjson), median to median: \((csvDiff.median / diff[0].median).rounded(decimals: 1))×")
                    let file = (try? FileManager.default.attributesOfItem(atPath: benchmark.path(.rows1M, .csv))[.size] as? Int) ?? 0
                    if let peak = diff[0].peakResidentBytes, file > 0 {
                        print("listsync diff (ndjson) peak RSS ÷ one file: \((Double(peak) / Double(file)).rounded(decimals: 2))×")
                    }
                }
            }
        }
    }

    struct FormatsMemoryProbe: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "formats-memory-probe",
            abstract: "Print the peak memory growth of reading one file, in bytes (used by `formats`).",
            shouldDisplay: false
        )

        @Argument var reader: String
        @Argument var path: String

        func run() throws {
            guard let reader = FormatsReader(rawValue: reader) else { throw ValidationError("unknown reader \(reader)") }
            print(FormatsBenchmark.probeMemory(reader, path: path).map(String.init) ?? "")
        }
    }

    struct FormatsRead: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "formats-read",
            abstract: """
                Read one file `--runs` times with one reader and print each run's wall time in seconds, \
                fastest first (used by `formats`, one fresh process per reader; run it under perf record \
                to profile a reader alone).
                """,
            shouldDisplay: false
        )

        @Argument var reader: String
        @Argument var path: String
        @Option var runs = 21
        @Option(help: "The records the file must have.") var records: Int?

        func run() throws {
            guard let reader = FormatsReader(rawValue: reader) else { throw ValidationError("unknown reader \(reader)") }
            let read = try reader.prepare(path: path)
            guard let count = read(), records.map({ $0 == count }) ?? true else {
                throw FormatsBenchmarkError.wrongRecordCount(reader: reader.name, file: path)
            }
            for seconds in Stopwatch.times(runs: runs, read).seconds {
                print(seconds)
            }
        }
    }
}
