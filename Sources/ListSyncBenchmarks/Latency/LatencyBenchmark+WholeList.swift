import Foundation

/// Issue 17 item 4: what whole-list changes cost the daemon in memory and on disk. A `rows`-row
/// CSV is saved again and again with every row's price changed (each version written to a
/// temporary file and renamed over), the state saved; after each version has reached a
/// subscriber and the daemon has written it to its log, the daemon's resident memory and the
/// size of its state directory are read. Run with the daemon's default history bounds and with
/// bounds so large that they never bind (the history as it was before it was bounded in bytes).
extension LatencyBenchmark {
    /// The daemon's memory and state across the whole-list saves of one run.
    struct WholeListResult {
        /// The run's name in the tables.
        var history: String
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
        /// The daemon's peak resident memory (`VmHWM`) at the end, in bytes.
        var peakMemory = 0
    }

    /// `saves` whole-list saves of a `rows`-row compact CSV, with `bounds` (or the defaults).
    func measureWholeList(rows: Int, saves: Int, bounds: LatencyDaemon.HistoryBounds?, history: String) async throws -> WholeListResult {
        let scratch = try self.scratchDirectory(bounds == nil ? "whole-list-defaults" : "whole-list-unbounded")
        var file = try LatencyFile(url: scratch.appendingPathComponent("products.csv"), rows: rows, layout: .compact)
        let daemon = try await LatencyDaemon(
            binary: self.listsyncd, directory: scratch, watchedFile: file.url, settleAfterClose: self.settle, persistent: true,
            historyBounds: bounds)
        defer { daemon.stop() }
        let subscriber = try LatencySubscribers(count: 1, socketPath: daemon.socketPath, watch: "products")
        try await Self.waitForStableState(of: daemon)
        var result = WholeListResult(
            history: history, bounds: bounds, rows: rows, fileSize: file.size, startMemory: try daemon.residentMemory, startState: try daemon.stateSize)
        for save in 0..<saves {
            try file.prepareWholeListEdit(save)
            try file.rename()
            _ = try subscriber.arrivals(ofChangeset: UInt64(save + 1), timeout: .seconds(900))
            try await Self.waitForStableState(of: daemon)
            result.memory.append(try daemon.residentMemory)
            result.state.append(try daemon.stateSize)
            print("  save \(save + 1): RSS \(result.memory[save] >> 20) MiB, state \(result.state[save] >> 20) MiB")
        }
        result.peakMemory = try daemon.peakMemory
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
            "history", "history_max_mib / history_cache_mib", "rows", "file", "saves", "RSS at start", "RSS after last save", "peak RSS (VmHWM)", "state at start",
            "state after last save",
        ])
        for result in results {
            table.rows.append([
                result.history, result.bounds.map { "\($0.maxMiB) / \($0.cacheMiB)" } ?? "256 / 16 (defaults)", "\(result.rows)", result.fileSize.mebibytes, "\(result.memory.count)", result.startMemory.mebibytes,
                (result.memory.last ?? 0).mebibytes, result.peakMemory.mebibytes, result.startState.mebibytes,
                (result.state.last ?? 0).mebibytes,
            ])
        }
        if results.count == 2 {
            let (bounded, unbounded) = (results[0], results[1])
            func ratio(_ a: Int, _ b: Int) -> String { b == 0 ? "—" : "× " + (Double(a) / Double(b)).rounded(decimals: 2) }
            table.rows.append([
                "\(bounded.history) ÷ \(unbounded.history)", "", "", "", "", ratio(bounded.startMemory, unbounded.startMemory),
                ratio(bounded.memory.last ?? 0, unbounded.memory.last ?? 0), ratio(bounded.peakMemory, unbounded.peakMemory),
                ratio(bounded.startState, unbounded.startState), ratio(bounded.state.last ?? 0, unbounded.state.last ?? 0),
            ])
        }
        return table
    }

    /// Per save: each run's resident memory and state size.
    static func wholeListSavesTable(_ results: [WholeListResult]) -> Table {
        var table = Table(header: ["save"] + results.flatMap { ["RSS, \($0.history)", "state, \($0.history)"] })
        let saves = results.map(\.memory.count).max() ?? 0
        table.rows.append(["0 (start)"] + results.flatMap { [$0.startMemory.mebibytes, $0.startState.mebibytes] })
        for save in 0..<saves {
            table.rows.append(
                ["\(save + 1)"]
                    + results.flatMap { result in
                        save < result.memory.count ? [result.memory[save].mebibytes, result.state[save].mebibytes] : ["—", "—"]
                    })
        }
        return table
    }
}
