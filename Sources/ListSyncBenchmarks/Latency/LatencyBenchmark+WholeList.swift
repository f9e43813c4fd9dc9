import Foundation

/// Issue 17 item 4: what whole-list changes cost the daemon in memory and on disk. A `rows`-row
/// CSV (or NDJSON file) is saved again and again with every row's price changed (each version
/// written to a temporary file and renamed over), the state saved; after each version has
/// reached a subscriber and the daemon has written it to its log, the daemon's resident memory
/// and the size of its state directory are read. Run with the daemon's default history bounds
/// and with bounds so large that they never bind (the history as it was before it was bounded in
/// bytes). Issue 19: per save, the daemon's growth over it — its peak (`VmHWM`, reset before the
/// save) once the log holds the version, less its resident memory before the save — and the
/// time from the rename to the changeset's last part at the subscriber.
extension LatencyBenchmark {
    /// The daemon's memory and state across the whole-list saves of one run.
    struct WholeListResult {
        /// The run's name in the tables.
        var history: String
        var format: LatencyFile.Format
        /// The history bounds the daemon ran with; `nil` for its defaults.
        var bounds: LatencyDaemon.HistoryBounds?
        var rows: Int
        /// The size of the list's file, in bytes.
        var fileSize: Int
        /// The daemon's resident memory (`VmRSS`) and state directory size, in bytes, once it
        /// served the first version.
        var startMemory: Int
        var startState: Int
        /// The same after each save, once its changeset reached the subscriber and the state
        /// directory stopped changing.
        var memory: [Int] = []
        var state: [Int] = []
        /// Per save: the daemon's peak over it less its resident memory before it, in bytes.
        var growth: [Int] = []
        /// Per save: from the rename to the changeset (its last part) at the subscriber.
        var saveTimes: [Duration] = []
        /// The daemon's peak resident memory (`VmHWM`) over the last save (it is reset before
        /// each), in bytes.
        var peakMemory = 0
    }

    /// `saves` whole-list saves of a `rows`-row compact file in `format`, with `bounds` (or the defaults).
    func measureWholeList(
        rows: Int, saves: Int, bounds: LatencyDaemon.HistoryBounds?, history: String, format: LatencyFile.Format = .csv
    ) async throws -> WholeListResult {
        let scratch = try self.scratchDirectory(bounds == nil ? "whole-list-defaults" : "whole-list-unbounded")
        var file = try LatencyFile(
            url: scratch.appendingPathComponent("products." + format.fileExtension), rows: rows, layout: .compact, format: format)
        let daemon = try await LatencyDaemon(
            binary: self.listsyncd, directory: scratch, watchedFile: file.url, settleAfterClose: self.settle, persistent: true,
            historyBounds: bounds, format: format)
        defer { daemon.stop() }
        let subscriber = try LatencySubscribers(count: 1, socketPath: daemon.socketPath, watch: "products")
        try await Self.waitForStableState(of: daemon)
        var result = WholeListResult(
            history: history, format: format, bounds: bounds, rows: rows, fileSize: file.size, startMemory: try daemon.residentMemory, startState: try daemon.stateSize)
        for save in 0..<saves {
            try file.prepareWholeListEdit(save)
            try daemon.resetPeakMemory()
            let before = try daemon.residentMemory
            let start = ContinuousClock.now
            try file.rename()
            let arrivals = try subscriber.arrivals(ofChangeset: UInt64(save + 1), timeout: .seconds(900))
            result.saveTimes.append((arrivals.max() ?? start) - start)
            try await Self.waitForStableState(of: daemon)
            result.peakMemory = try daemon.peakMemory
            result.growth.append(result.peakMemory - before)
            result.memory.append(try daemon.residentMemory)
            result.state.append(try daemon.stateSize)
            print(
                "  save \(save + 1): \(result.saveTimes[save].milliseconds), RSS before \(before >> 20) MiB, peak \(result.peakMemory >> 20) MiB, "
                    + "growth \(result.growth[save] >> 20) MiB, RSS \(result.memory[save] >> 20) MiB, state \(result.state[save] >> 20) MiB")
        }
        // The next run starts from a clean disk.
        daemon.stop()
        try? FileManager.default.removeItem(at: scratch)
        return result
    }

    /// Waits until the state directory's size has not changed for a second: the daemon appends
    /// a changeset to its log after publishing it (and rewrites the log when it is over its
    /// bounds), so the size read at the arrival may miss the newest.
    private static func waitForStableState(of daemon: LatencyDaemon) async throws {
        let deadline = ContinuousClock.now + .seconds(300)
        var size = try daemon.stateSize
        var since = ContinuousClock.now
        while ContinuousClock.now - since < .seconds(1) {
            guard ContinuousClock.now < deadline else {
                throw LatencySubscribers.Failure(description: "the state directory kept changing for 300 s")
            }
            try await Task.sleep(for: .milliseconds(100))
            let now = try daemon.stateSize
            if now != size {
                size = now
                since = .now
            }
        }
    }

    /// Per run: the daemon's memory and state at the start, after the last save, and its peak;
    /// then a row of the ratios of the first run (the defaults) to the second (unbounded).
    static func wholeListTable(_ results: [WholeListResult]) -> Table {
        var table = Table(header: [
            "history", "history_max_mib / history_cache_mib", "format", "rows", "file", "saves", "RSS at start", "RSS after last save",
            "peak RSS over the last save (VmHWM)", "growth over a save, median (max)", "× file", "save, p50 (max)", "state at start",
            "state after last save",
        ])
        for result in results {
            let growth = RestartResult.median(result.growth) ?? 0
            let times = result.saveTimes.sorted()
            table.rows.append([
                result.history, result.bounds.map { "\($0.maxMiB) / \($0.cacheMiB)" } ?? "256 / 16 (defaults)", result.format.label, "\(result.rows)",
                result.fileSize.mebibytes, "\(result.memory.count)", result.startMemory.mebibytes, (result.memory.last ?? 0).mebibytes,
                result.peakMemory.mebibytes, "\(growth.mebibytes) (\((result.growth.max() ?? 0).mebibytes))",
                (Double(growth) / Double(max(result.fileSize, 1))).rounded(decimals: 2),
                times.isEmpty ? "—" : "\(times[times.count / 2].milliseconds) (\(times[times.count - 1].milliseconds))",
                result.startState.mebibytes, (result.state.last ?? 0).mebibytes,
            ])
        }
        if results.count == 2, results[0].bounds == nil, results[1].bounds != nil, results[0].format == results[1].format {
            let (bounded, unbounded) = (results[0], results[1])
            func ratio(_ a: Int, _ b: Int) -> String { b == 0 ? "—" : "× " + (Double(a) / Double(b)).rounded(decimals: 2) }
            table.rows.append([
                "\(bounded.history) ÷ \(unbounded.history)", "", "", "", "", "", ratio(bounded.startMemory, unbounded.startMemory),
                ratio(bounded.memory.last ?? 0, unbounded.memory.last ?? 0), ratio(bounded.peakMemory, unbounded.peakMemory), "", "", "",
                ratio(bounded.startState, unbounded.startState), ratio(bounded.state.last ?? 0, unbounded.state.last ?? 0),
            ])
        }
        return table
    }

    /// Per save: each run's time, growth over it, resident memory and state size.
    static func wholeListSavesTable(_ results: [WholeListResult]) -> Table {
        var table = Table(
            header: ["save"]
                + results.flatMap { result in
                    let run = "\(result.history), \(result.format.label)"
                    return ["time, \(run)", "growth, \(run)", "RSS, \(run)", "state, \(run)"]
                })
        let saves = results.map(\.memory.count).max() ?? 0
        table.rows.append(["0 (start)"] + results.flatMap { ["", "", $0.startMemory.mebibytes, $0.startState.mebibytes] })
        for save in 0..<saves {
            table.rows.append(
                ["\(save + 1)"]
                    + results.flatMap { result in
                        save < result.memory.count
                            ? [result.saveTimes[save].milliseconds, result.growth[save].mebibytes, result.memory[save].mebibytes, result.state[save].mebibytes]
                            : ["—", "—", "—", "—"]
                    })
        }
        return table
    }
}
