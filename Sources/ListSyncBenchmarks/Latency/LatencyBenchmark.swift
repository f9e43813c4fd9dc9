import Foundation
import ListSyncClient

/// The time from the rename of a watched file to its changeset at subscribers: a plain-socket
/// subscriber (the daemon's latency) and a `ListSyncClient` mirror (applied and digest-verified:
/// what a client program sees), for a 10k-row and a 1M-row file; and fanned out to thousands of
/// subscribers of one large list, how long until the last one has its snapshot and each
/// changeset, and what that costs the daemon.
struct LatencyBenchmark {
    var listsyncd: URL
    var directory: URL
    /// The daemon's `settle_after_close_ms`: it waits that long after a rename before reading.
    var settle: Duration
    /// Whether the daemon saves its state (issue 12), or runs without for a comparison.
    var persistent = true
    /// Whether each version's temporary file is `fsync`ed before it is renamed over (outside the
    /// clock), as a careful writer saves.
    var writerSyncs = false
    /// Whether the daemon publishes each version before it flushes it (`sync_before_publish =
    /// false`; a daemon before the setting refuses it).
    var publishesBeforeSync = false
    /// Whether each rename of the one-row workload runs on a thread of its own while the
    /// subscribers are read (``RenameApart``), rather than before they are read.
    var renamesApart = false
    /// How long to wait before each edit of `measure` (zero: edits back to back). A pause longer
    /// than 1.5 s times saves that come at a regular interval, each after an idle moment: a
    /// daemon before `spare_memory_max_idle_ms` gave back its recycled storage before each of
    /// them (a lone save); one with it keeps the storage for saves up to 10 s apart by default.
    var pauseBeforeEdit: Duration = .zero

    /// The latencies of one workload, per kind of subscriber.
    struct Result {
        var workload: String
        var subscriber: String
        var samples: [Duration]
        /// The daemon's CPU time per edit; `nil` for the mirror, measured in the same run.
        var daemonCPU: Duration?
        /// The daemon's CPU time from one edit's changeset at the plain subscriber to the next's,
        /// per edit (what it did after publishing the one before — the log, a full checkpoint
        /// now and then — falls in the next edit's): their median is a version's in a steady
        /// run, without the second checkpoint slot a new watch writes once in its first versions.
        var daemonCPUPerEdit: [Duration]? = nil
        var bar: String
        /// `wc -l` of the same file in the same run (issue 19's baseline); on the plain socket's row.
        var lineCount: [Duration]? = nil
        /// The daemon's memory, on the plain socket's row: resident once it serves the file
        /// (loaded, or restored after a restart) and has settled
        /// (``LatencyDaemon/settledResidentMemory(quiet:limit:)``), and its peak over the edits
        /// (`VmHWM` reset then), in bytes.
        var residentAfterLoad: Int? = nil
        var peakOverEdits: Int? = nil
        /// The daemon's peak resident memory from its (last) start until it served the file, in bytes.
        var peakAtLoad: Int? = nil
        /// The size of the watched file at the end, in bytes.
        var fileSize: Int? = nil
        /// The daemon's records files after the edits (``LatencyDaemon/recordsFiles``): their
        /// size and the page cache they take, in bytes; on the plain socket's row.
        var recordsFiles: (size: Int, cached: Int)? = nil
        /// Per rename, from its start to its inotify event at a watcher of the benchmark's own
        /// (``RenameObserver``): the file system's share, before any watcher can know.
        var renameToEvent: [Duration]? = nil
    }

    /// Many subscribers of one list: their snapshots, then per changeset rename → first and
    /// rename → last arrival; the daemon's CPU time and peak memory.
    struct FanOutResult {
        var subscribers: Int
        var rows: Int
        /// From the first connect to the last subscriber holding its snapshot.
        var snapshots: Duration
        /// The daemon's CPU time for all the snapshots.
        var snapshotCPU: Duration
        var first: [Duration]
        var last: [Duration]
        /// The daemon's CPU time per version published, from the rename to the last subscriber.
        var cpuPerVersion: Duration
        /// The daemon's peak resident memory, in bytes.
        var peakMemory: Int
        /// The size of the list's file, in bytes.
        var fileSize: Int
    }

    /// How each timed version of the file is made.
    enum Edit: Equatable {
        /// One row changed, the whole file written to a temporary file and renamed over.
        case oneRow
        /// `rows` rows appended in place (`O_APPEND`, one write, close).
        case append(rows: Int)
    }

    // MARK: Workloads

    /// `edits` edits of a `rows`-row file in `format` (one row changed at `places`, or rows
    /// appended), each timed at a raw subscriber and at a mirror, sent to a daemon that read the
    /// file or was restarted once it served it (`start`). The daemon's memory is read once it
    /// serves the file (`VmRSS`, and `VmHWM`: its load's or restore's peak); its peak is then
    /// reset (`clear_refs`) and read again after the edits.
    func measure(
        rows: Int, edits: Int, workload: String, bar: String, withMirror: Bool, edit kind: Edit = .oneRow, format: LatencyFile.Format = .csv,
        places: LatencyFile.EditPlaces = .forward, start: Start = .firstLoad
    ) async throws -> [Result] {
        let scratch = try self.scratchDirectory("rows-\(rows)")
        var file = try LatencyFile(url: scratch.appendingPathComponent("products.\(format.fileExtension)"), rows: rows, format: format)
        file.syncsBeforeRename = self.writerSyncs
        file.editPlaces = places
        let daemon = try await self.startDaemon(in: scratch, watching: file.url, format: format, start: start)
        defer { daemon.stop() }
        // A restarted daemon's versions go on from the one it restored.
        let servedSeq = daemon.servedCursor?.seq ?? 0
        let raw = try LatencySubscribers(count: 1, socketPath: daemon.socketPath, watch: "products")
        let (arrivals, arrived) = AsyncStream<(seq: UInt64, at: ContinuousClock.Instant)>.makeStream()
        let mirror = withMirror ? Self.mirrorTask(socketPath: daemon.socketPath, reporting: arrived) : nil
        defer { mirror?.cancel() }
        var mirrorArrivals = arrivals.makeAsyncIterator()
        if mirror != nil {
            _ = await mirrorArrivals.next()  // The mirror holds the first version.
        }
        var rawSamples: [Duration] = []
        var mirrorSamples: [Duration] = []
        let renames = kind == .oneRow ? try RenameObserver(file: file.url) : nil
        defer { renames?.stop() }
        var renameToEvent: [Duration] = []
        let residentAfterLoad = try await daemon.settledResidentMemory()
        let peakAtLoad = try daemon.peakMemory
        try daemon.resetPeakMemory()
        let cpuBefore = try daemon.cpuTime
        var cpuPerEdit: [Duration] = []
        var cpuAtLastArrival = cpuBefore
        for edit in 0..<edits {
            let seq = servedSeq + UInt64(edit + 1)
            if self.pauseBeforeEdit > .zero {
                try await Task.sleep(for: self.pauseBeforeEdit)
            }
            let start: ContinuousClock.Instant
            var renaming: RenameApart?
            switch kind {
            case .oneRow where self.renamesApart:
                try file.prepareEdit(edit)
                renaming = RenameApart(from: file.temporary.path, to: file.url.path)
                start = renaming?.start ?? .now
            case .oneRow:
                try file.prepareEdit(edit)
                start = .now
                try file.rename()
            case .append(let count):
                let bytes = file.prepareAppend(rows: count)
                start = .now
                try file.append(bytes)
            }
            rawSamples += try raw.arrivals(ofChangeset: seq).map { $0 - start }
            try renaming?.finish()
            let cpuNow = try daemon.cpuTime
            cpuPerEdit.append(cpuNow - cpuAtLastArrival)
            cpuAtLastArrival = cpuNow
            if let renames {
                renameToEvent.append(try renames.arrival(ofRename: edit) - start)
            }
            if let mirror {
                while true {
                    guard let arrival = await mirrorArrivals.next() else {
                        try await mirror.value
                        throw LatencySubscribers.Failure(description: "the mirror ended before changeset \(seq)")
                    }
                    if arrival.seq == seq {
                        mirrorSamples.append(arrival.at - start)
                        break
                    }
                }
            }
        }
        let daemonCPU = (try daemon.cpuTime - cpuBefore) / edits
        let peakOverEdits = try daemon.peakMemory
        let recordsFiles = daemon.recordsFiles
        let fileSize = try FileManager.default.attributesOfItem(atPath: file.url.path)[.size] as? Int
        let lineCount = try LineCountBaseline.times(of: file.url, runs: max(edits, 5))
        var results = [
            Result(
                workload: workload, subscriber: "plain socket", samples: rawSamples, daemonCPU: daemonCPU, daemonCPUPerEdit: cpuPerEdit, bar: bar, lineCount: lineCount,
                residentAfterLoad: residentAfterLoad, peakOverEdits: peakOverEdits, peakAtLoad: peakAtLoad, fileSize: fileSize,
                recordsFiles: recordsFiles, renameToEvent: renames == nil ? nil : renameToEvent)
        ]
        if mirror != nil {
            results.append(
                Result(workload: workload, subscriber: "ListSyncClient mirror (applied, digest verified)", samples: mirrorSamples, daemonCPU: nil, bar: "—"))
        }
        return results
    }

    /// From starting the daemon to serving a `rows`-row watch of a file in `format`, `runs` times:
    /// the first start reads the file; each restart (after SIGTERM) restores the saved state,
    /// then reads the file. Also, per restart, the daemon's resident memory once it serves the
    /// watch (`VmRSS`) and its peak so far (`VmHWM`: the restore's), and the file's size (issue 19:
    /// a restored version held as mappings of the state files).
    func measureRestart(rows: Int, runs: Int, format: LatencyFile.Format = .csv) async throws -> RestartResult {
        let scratch = try self.scratchDirectory("restart-\(rows)")
        let file = try LatencyFile(url: scratch.appendingPathComponent("products.\(format.fileExtension)"), rows: rows, format: format)
        var starts: [Duration] = []
        var memory: [(resident: Int, peak: Int)] = []
        for _ in 0...runs {
            let daemon = try await self.startDaemon(in: scratch, watching: file.url, format: format)
            starts.append(daemon.startup)
            memory.append((try daemon.residentMemory, try daemon.peakMemory))
            daemon.stop()
        }
        return RestartResult(first: starts[0], restarts: Array(starts.dropFirst()), memory: Array(memory.dropFirst()), fileSize: file.size)
    }

    /// What ``measureRestart(rows:runs:format:)`` measured.
    struct RestartResult {
        var first: Duration
        var restarts: [Duration]
        /// Per restart: `VmRSS` once the watch is served and `VmHWM`, in bytes.
        var memory: [(resident: Int, peak: Int)]
        var fileSize: Int

        /// The median of `values` (the upper one of an even count); `nil` when there are none.
        static func median(_ values: [Int]) -> Int? {
            values.isEmpty ? nil : values.sorted()[values.count / 2]
        }
    }

    /// `subscribers` plain-socket subscribers on one watch of `rows` rows, `edits` edits.
    func measureFanOut(subscribers count: Int, rows: Int, edits: Int) async throws -> FanOutResult {
        let scratch = try self.scratchDirectory("fan-out")
        var file = try LatencyFile(url: scratch.appendingPathComponent("products.csv"), rows: rows)
        let daemon = try await LatencyDaemon(
            binary: self.listsyncd, directory: scratch, watchedFile: file.url, settleAfterClose: self.settle, persistent: self.persistent)
        defer { daemon.stop() }
        let snapshotCPUBefore = try daemon.cpuTime
        let connecting = ContinuousClock.now
        let subscribers = try LatencySubscribers(count: count, socketPath: daemon.socketPath, watch: "products")
        let snapshots = (subscribers.lastSnapshotArrival ?? .now) - connecting
        let cpuBefore = try daemon.cpuTime
        var result = FanOutResult(
            subscribers: count, rows: rows, snapshots: snapshots, snapshotCPU: cpuBefore - snapshotCPUBefore, first: [], last: [],
            cpuPerVersion: .zero, peakMemory: 0, fileSize: file.size)
        for edit in 0..<edits {
            try file.prepareEdit(edit)
            let start = ContinuousClock.now
            try file.rename()
            let arrivals = try subscribers.arrivals(ofChangeset: UInt64(edit + 1))
            guard arrivals.count == count, let first = arrivals.min(), let last = arrivals.max() else {
                throw LatencySubscribers.Failure(description: "only \(arrivals.count) of \(count) subscribers got changeset \(edit + 1)")
            }
            result.first.append(first - start)
            result.last.append(last - start)
        }
        result.cpuPerVersion = (try daemon.cpuTime - cpuBefore) / edits
        result.peakMemory = try daemon.peakMemory
        return result
    }

    /// A `ListSyncClient` mirror of `products` that reports the instant each changeset was
    /// applied and verified (and the served version's `seq` once it holds it). Anything that did
    /// not verify (the mirror resyncing) or a lost connection ends it with an error, and the
    /// stream of arrivals with it: the benchmark's mirror check.
    private static func mirrorTask(
        socketPath: String, reporting arrived: AsyncStream<(seq: UInt64, at: ContinuousClock.Instant)>.Continuation
    ) -> Task<Void, any Error> {
        Task {
            defer { arrived.finish() }
            let client = ListSyncClient(configuration: ClientConfiguration(socketPath: socketPath, clientName: "latency benchmark"))
            try await client.withMirror(of: "products") { updates in
                for try await update in updates {
                    switch update.event {
                    case .changeset(let changeset):
                        arrived.yield((changeset.cursor.seq, .now))
                    case .snapshot(let cursor) where update.isCurrent:
                        arrived.yield((cursor.seq, .now))
                    case .resyncing(let error):
                        throw LatencySubscribers.Failure(description: "the mirror did not verify: \(error)")
                    case .disconnected(let error, _):
                        throw LatencySubscribers.Failure(description: "the mirror lost its connection: \(error)")
                    default:
                        break
                    }
                }
            }
        }
    }

    func scratchDirectory(_ name: String) throws -> URL {
        let url = self.directory.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    // MARK: Tables

    func latencyTable(_ results: [Result]) -> Table {
        var table = Table(header: [
            "daemon", "workload", "subscriber", "edits", "p50", "p99", "max", "p50 − settle", "p99 − settle", "daemon CPU / edit", "daemon CPU / edit p50",
            "`wc -l` p50", "p50 / `wc -l`", "rename → inotify event p50", "peak RSS loading or restoring / file", "RSS once served and settled / file",
            "peak RSS over the edits / file", "records file: size, in page cache (not RSS)", "bar",
        ])
        for result in results {
            let samples = LatencySamples(result.samples)
            let lineCount = result.lineCount.map { LatencySamples($0).p50 }
            table.rows.append([
                self.listsyncd.path, result.workload, result.subscriber, "\(result.samples.count)", samples.p50.milliseconds, samples.p99.milliseconds,
                samples.max.milliseconds, (samples.p50 - self.settle).milliseconds, (samples.p99 - self.settle).milliseconds,
                result.daemonCPU?.milliseconds ?? "—", result.daemonCPUPerEdit.map { LatencySamples($0).p50.milliseconds } ?? "—",
                lineCount?.milliseconds ?? "—",
                lineCount.map { (samples.p50 / $0).rounded(decimals: 2) + "×" } ?? "—",
                result.renameToEvent.map { LatencySamples($0).p50.milliseconds } ?? "—",
                Self.relative(result.peakAtLoad, to: result.fileSize), Self.relative(result.residentAfterLoad, to: result.fileSize),
                Self.relative(result.peakOverEdits, to: result.fileSize),
                result.recordsFiles.map { "\($0.size >> 20) MiB, \($0.cached >> 20) MiB" } ?? "—",
                result.bar,
            ])
        }
        return table
    }

    /// `bytes` in MiB and over `size` (issue 19's memory goal: the daemon's peak ≤ 1.0× the file).
    private static func relative(_ bytes: Int?, to size: Int?) -> String {
        guard let bytes, let size, size > 0 else { return "—" }
        return "\(bytes >> 20) MiB, " + (Double(bytes) / Double(size)).rounded(decimals: 2) + "×"
    }

    /// `rows` says the file's format too (`1000000 NDJSON`).
    static func restartTable(_ results: [(state: String, rows: String, result: RestartResult)]) -> Table {
        Table(
            header: [
                "rows", "state", "first start → served", "restart → served p50", "restart → served max", "RSS once served after a restart / file (median)",
                "peak RSS restoring / file (median)", "bar",
            ],
            rows: results.map { row in
                let result = row.result
                let restarts = LatencySamples(result.restarts)
                return [
                    row.rows, row.state, result.first.milliseconds, restarts.p50.milliseconds, restarts.max.milliseconds,
                    Self.relative(RestartResult.median(result.memory.map(\.resident)), to: result.fileSize),
                    Self.relative(RestartResult.median(result.memory.map(\.peak)), to: result.fileSize),
                    row.state == "saved" ? "restart ≤ 1500 ms" : "—",
                ]
            })
    }

    static func fanOutTable(_ results: [FanOutResult]) -> Table {
        var table = Table(header: [
            "subscribers", "rows", "all snapshots", "daemon CPU, snapshots", "changesets", "rename → first p50", "rename → last p50",
            "rename → last p99", "last − first p50", "last − first p99", "daemon CPU / version", "daemon peak RSS",
            "bar: last − first p50 ≤ 100 ms, RSS ≤ 256 MiB + 2 × list",
        ])
        for result in results {
            let spreads = LatencySamples(zip(result.last, result.first).map { $0 - $1 })
            let first = LatencySamples(result.first)
            let last = LatencySamples(result.last)
            table.rows.append([
                "\(result.subscribers)", "\(result.rows)", result.snapshots.milliseconds, result.snapshotCPU.milliseconds,
                "\(result.first.count)", first.p50.milliseconds, last.p50.milliseconds, last.p99.milliseconds, spreads.p50.milliseconds,
                spreads.p99.milliseconds, result.cpuPerVersion.milliseconds, "\(result.peakMemory >> 20) MiB",
                "≤ \((256 << 20 + 2 * result.fileSize) >> 20) MiB",
            ])
        }
        return table
    }
}
