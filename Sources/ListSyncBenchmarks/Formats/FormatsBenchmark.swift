import Foundation
import ListDiff
import ListFormats
import ListSyncProtocol

/// ListFormats' readers against Foundation's `JSONSerialization` and
/// CSV.swift on the same generated files, in the same run: median times,
/// MB/s, peak memory growth in a fresh process; then `listsync diff` of two
/// 1M-row CSV files that differ in 1% of rows, run as a subprocess, against
/// csv-diff (PyPI) on the same files when it is given.
struct FormatsBenchmark {
    /// Timed reads per file for ListFormats (the median is reported).
    var runs: Int
    /// Timed reads per file for the baselines.
    var baselineRuns: Int
    /// Timed runs of `listsync diff`.
    var diffRuns: Int
    /// Where the generated files go.
    var directory: URL
    /// The `listsync` binary to time.
    var listsync: URL
    /// The `csv-diff` command (PyPI) to time against `listsync diff`, if any.
    var csvDiff: String?

    /// One reader on one file.
    struct ReadResult {
        var size: FormatsWorkload.Size
        var reader: FormatsReader
        var fileSize: Int
        var median: Double
        var best: Double
        var memory: Int?

        /// Decimal megabytes per second in `seconds`.
        func megabytesPerSecond(_ seconds: Double) -> Double {
            Double(fileSize) / seconds / 1e6
        }
    }

    /// One timed step of the diff.
    struct DiffResult {
        var step: String
        var median: Double
        var best: Double
        /// The highest peak resident set size of the runs (steps run as a subprocess).
        var peakResidentBytes: Int?

        init(step: String, seconds: [Double], peakResidentBytes: Int? = nil) {
            let seconds = seconds.sorted()
            self.step = step
            median = seconds[seconds.count / 2]
            best = seconds[0]
            self.peakResidentBytes = peakResidentBytes
        }

        init(step: String, runs: [ChildRun]) {
            self.init(step: step, seconds: runs.map(\.seconds), peakResidentBytes: runs.compactMap(\.peakResidentBytes).max())
        }
    }

    /// The path of a generated file.
    func path(_ size: FormatsWorkload.Size, _ format: FormatsFileWriter.Format, changed: Bool = false) -> String {
        let name = "rows-\(size.rawValue)\(changed ? "-changed" : "").\(format == .csv ? "csv" : "json")"
        return directory.appendingPathComponent(name).path
    }

    /// Writes the CSV and JSON files of `size` (and for 1M rows the changed
    /// CSV version), the same bytes on every run.
    func writeFiles(_ size: FormatsWorkload.Size) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for format in [FormatsFileWriter.Format.csv, .json] {
            var writer = FormatsFileWriter(format: format, expectedRows: size.rowCount)
            for index in 0..<size.rowCount { writer.append(FormatsWorkload.row(index)) }
            try Data(writer.finish()).write(to: URL(fileURLWithPath: path(size, format)))
        }
        if size == .rows1M {
            var writer = FormatsFileWriter(format: .csv, expectedRows: size.rowCount)
            FormatsWorkload.changedRows(count: size.rowCount) { writer.append($0) }
            try Data(writer.finish()).write(to: URL(fileURLWithPath: path(size, .csv, changed: true)))
        }
    }

    /// Times every reader on the files of `size` and probes its memory, each
    /// in a fresh child process (`formats-read`, `formats-memory-probe`): a
    /// reader that leaves a fragmented heap behind (the baselines free
    /// hundreds of megabytes of small objects) would otherwise slow the next
    /// one down — ListFormats' 1M-row CSV read took 45% longer after them.
    func measureReads(_ size: FormatsWorkload.Size, readers: [FormatsReader]) throws -> [ReadResult] {
        try readers.map { reader in
            let file = path(size, reader.format)
            let runs = reader.isListFormats ? runs : baselineRuns
            let output = MemoryProbe.output(
                ["formats-read", reader.rawValue, file, "--runs", "\(runs)", "--records", "\(size.rowCount)"])
            let times = output?.split(separator: "\n").compactMap { Double($0) } ?? []
            guard times.count == runs else { throw FormatsBenchmarkError.wrongRecordCount(reader: reader.name, file: file) }
            let fileSize = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
            return ReadResult(
                size: size, reader: reader, fileSize: fileSize, median: times[times.count / 2], best: times[0],
                memory: MemoryProbe.run(["formats-memory-probe", reader.rawValue, file]))
        }
    }

    /// Times `listsync diff` on the 1M-row CSV files, run as a subprocess
    /// (wall time of the whole process, output to /dev/null), once per
    /// output format; then the same steps in this process, one at a time, to
    /// show where the time goes.
    func measureDiff() throws -> [DiffResult] {
        let old = path(.rows1M, .csv)
        let new = path(.rows1M, .csv, changed: true)
        var results: [DiffResult] = []
        for format in ["ndjson", "human"] {
            let arguments = ["diff", old, new, "--key", "id", "--format", format]
            let runs = try (0..<diffRuns).map { _ in try ChildRun.run(listsync.path, arguments, measuringPeakMemory: true) }
            if let run = runs.first(where: { $0.status != 1 }) {
                throw FormatsBenchmarkError.unexpectedStatus(run.status, command: "listsync " + arguments.joined(separator: " "))
            }
            results.append(DiffResult(step: "`listsync diff --key id --format \(format)` (subprocess, wall)", runs: runs))
        }
        if let csvDiff {
            // The baseline: csv-diff reads both files into Python dictionaries and compares them.
            let arguments = [old, new, "--key", "id"]
            let runs = try (0..<diffRuns).map { _ in try ChildRun.run(csvDiff, arguments, measuringPeakMemory: true) }
            if let run = runs.first(where: { $0.status != 0 }) {
                throw FormatsBenchmarkError.unexpectedStatus(run.status, command: "csv-diff " + arguments.joined(separator: " "))
            }
            results.append(DiffResult(step: "`csv-diff --key id` (PyPI; subprocess, wall)", runs: runs))
        }
        let reader = ListReader(options: ReadOptions(format: .csv(delimiter: .comma), key: ["id"]))
        let oldList = try reader.read(contentsOfFile: old)
        let newList = try reader.read(contentsOfFile: new)
        let readOld = Stopwatch.times(runs: diffRuns) { try? reader.read(contentsOfFile: old) }
        results.append(DiffResult(step: "in process: read the old file (load + parse)", seconds: readOld.seconds))
        let diff = Stopwatch.times(runs: diffRuns) { StagedChangeset(source: oldList.records, target: newList.records) }
        results.append(DiffResult(step: "in process: `StagedChangeset(source:target:)`", seconds: diff.seconds))
        let encode = Stopwatch.times(runs: diffRuns) { ChangesetEncoder.encode(diff.result, source: oldList, target: newList) }
        results.append(DiffResult(step: "in process: `ChangesetEncoder.encode` (\(encode.result.count) bytes)", seconds: encode.seconds))
        return results
    }

    /// Peak memory growth of reading the file at `path` with `reader`,
    /// measured in this process (a fresh child of the benchmark).
    static func probeMemory(_ reader: FormatsReader, path: String) -> Int? {
        PeakMemory.growth { blackHole(reader.read(file: path)) }
    }

    static func readTable(_ results: [ReadResult]) -> Table {
        var table = Table(header: [
            "rows", "file", "reader", "median", "MB/s", "best", "MB/s (best)", "peak memory growth", "× file size",
        ])
        for result in results {
            table.rows.append([
                result.size.rawValue,
                "\(result.reader.format == .csv ? "CSV" : "JSON") \((Double(result.fileSize) / 1e6).rounded(decimals: 1)) MB",
                result.reader.name,
                result.median.milliseconds,
                result.megabytesPerSecond(result.median).rounded(decimals: 0),
                result.best.milliseconds,
                result.megabytesPerSecond(result.best).rounded(decimals: 0),
                result.memory?.mebibytes ?? "n/a",
                result.memory.map { (Double($0) / Double(result.fileSize)).rounded(decimals: 2) + "×" } ?? "n/a",
            ])
        }
        return table
    }

    static func diffTable(_ results: [DiffResult]) -> Table {
        var table = Table(header: ["step", "median", "best", "peak RSS"])
        table.rows = results.map { [$0.step, $0.median.milliseconds, $0.best.milliseconds, $0.peakResidentBytes?.mebibytes ?? ""] }
        return table
    }
}
