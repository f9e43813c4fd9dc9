import Foundation
import ListFormats
import ListSyncProtocol

/// Reading the next version of a large CSV: the incremental reader after a one-row edit and after
/// an append, against reading it whole and against `wc -l` of the same file, in the same run.
struct IncrementalBenchmark {
    struct Result {
        var workload: String
        /// What the reader parsed per read (`nil`: not a read).
        var parsedBytes: Int?
        var samples: [Duration]
    }

    let file: URL
    let original: [UInt8]
    let edited: [UInt8]
    let appended: [UInt8]
    let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])

    var fileSize: Int { original.count }

    /// Writes the file and prepares its versions.
    init(directory: URL, rows: Int, appendedRows: Int) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var products = try LatencyFile(url: directory.appendingPathComponent("products.csv"), rows: rows)
        file = products.url
        original = try Self.load(products.url)
        try products.prepareEdit(rows / 2)
        edited = try Self.load(products.temporary)
        try FileManager.default.removeItem(at: products.temporary)
        var tail = ""
        for index in rows..<rows + appendedRows {
            tail += LatencyFile.row(index, version: 0, layout: .wide) + "\n"
        }
        appended = original + Array(tail.utf8)
    }

    /// The bytes of the file at `url`, read with read(2) into a fresh array, as the daemon loads a file.
    static func load(_ url: URL) throws -> [UInt8] {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw LatencySubscribers.Failure(description: "open \(url.path): \(errno)") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw LatencySubscribers.Failure(description: "fstat: \(errno)") }
        let size = Int(info.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let got = read(descriptor, buffer.baseAddress.map { $0 + done }, size - done)
                if got <= 0 {
                    failed = got < 0
                    break
                }
                done += got
            }
            count = done
        }
        guard !failed, bytes.count == size else { throw LatencySubscribers.Failure(description: "read \(url.path): \(errno)") }
        return bytes
    }

    func measure(runs: Int) throws -> [Result] {
        var results: [Result] = []
        results.append(Result(workload: "`wc -l` of the file (baseline)", samples: try LineCountBaseline.times(of: file, runs: runs)))
        results.append(
            Result(workload: "read(2) of the file into a fresh array", samples: try timed(runs) { _ = try Self.load(file) }))

        let full = ListReader(options: options)
        results.append(
            Result(
                workload: "ListReader, whole file", parsedBytes: fileSize,
                samples: try timed(runs) { _ = try full.read(bytes: edited) }))

        // A first read (no chunks kept: a watch's first start): in two halves at once, as
        // ListReader reads, and on one thread as before the halves (`splitSize` beyond the file).
        for (workload, splitSize) in [
            ("IncrementalListReader, first read", IncrementalListReader.defaultSplitSize),
            ("IncrementalListReader, first read on one thread", Int.max),
        ] {
            var parsed = 0
            let samples = try timed(runs) {
                var reader = IncrementalListReader(options: options, splitSize: splitSize)
                _ = try reader.read(bytes: edited)
                parsed = reader.lastRead.parsedByteCount
            }
            results.append(Result(workload: workload, parsedBytes: parsed, samples: samples))
        }

        var reader = IncrementalListReader(options: options)
        _ = try reader.read(bytes: original)
        var versions = [edited, original]
        var parsed = 0
        let editSamples = try timed(runs) {
            _ = try reader.read(bytes: versions[0])
            versions.swapAt(0, 1)
            parsed = max(parsed, reader.lastRead.parsedByteCount)
        }
        results.append(Result(workload: "IncrementalListReader, one row changed", parsedBytes: parsed, samples: editSamples))

        var appendSamples: [Duration] = []
        for _ in 0..<runs {
            _ = try reader.read(bytes: original)
            appendSamples += try timed(1) { _ = try reader.read(bytes: appended) }
            parsed = reader.lastRead.parsedByteCount
        }
        results.append(
            Result(workload: "IncrementalListReader, \(appended.count - original.count) bytes appended", parsedBytes: parsed, samples: appendSamples))
        results += try self.measureDigests(runs: runs)
        return results
    }

    /// The digest of a version with one row changed (issue 19 item 2): protocol version 1's, the
    /// SHA-256 over every record hash, against version 2's tree updated from the last version's,
    /// as the daemon computes each (alternating two versions).
    private func measureDigests(runs: Int) throws -> [Result] {
        let lists = [try ListReader(options: options).read(bytes: original), try ListReader(options: options).read(bytes: edited)]
        let sections = lists.map(\.sections)
        var alternate = 0
        let v1 = try timed(runs) {
            alternate ^= 1
            _ = ListDigest(of: lists[alternate], version: .v1)
        }
        var trees = sections.map { ListDigestTree(schema: lists[0].schema, sections: $0) }
        let v2 = try timed(runs) {
            alternate ^= 1
            trees[alternate] = trees[alternate ^ 1].updated(schema: lists[0].schema, from: sections[alternate ^ 1], to: sections[alternate])
        }
        return [
            Result(workload: "digest of a version, protocol 1 (SHA-256 of every record hash)", samples: v1),
            Result(workload: "digest of a version, protocol 2 (tree updated from the last version's)", samples: v2),
        ]
    }

    private func timed(_ runs: Int, _ body: () throws -> Void) throws -> [Duration] {
        var samples: [Duration] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            try body()
            samples.append(ContinuousClock.now - start)
        }
        return samples
    }

    static func table(_ results: [Result]) -> Table {
        let baseline = results.first.map { LatencySamples($0.samples).p50 } ?? .zero
        var table = Table(header: ["workload", "parsed per read", "runs", "median", "fastest", "median / `wc -l` median"])
        for result in results {
            let samples = LatencySamples(result.samples)
            table.rows.append([
                result.workload, result.parsedBytes.map { "\($0) B" } ?? "—", "\(result.samples.count)", samples.p50.milliseconds,
                (result.samples.min() ?? .zero).milliseconds, (samples.p50 / baseline).rounded(decimals: 3) + "×",
            ])
        }
        return table
    }
}
