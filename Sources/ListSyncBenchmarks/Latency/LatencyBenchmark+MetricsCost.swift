import Foundation

/// Issue 20's last proof: what serving metrics costs the daemon. The 10k-row workload (one-row
/// edits, each waited for at a plain-socket subscriber) runs with `metrics_listen` unset and set,
/// alternately, several rounds in the same run; with it set, a scraper GETs `/metrics` every
/// second, as Prometheus would. Each run is a fresh daemon on a fresh file; its CPU time is
/// counted over the edits only (after `warmUp` edits not counted).
extension LatencyBenchmark {
    /// The daemon's CPU per version in one run.
    struct MetricsCostRun {
        var metrics: Bool
        var edits: Int
        var cpuPerVersion: Duration
        /// How long the counted edits took.
        var wall: Duration
        /// Scrapes of `/metrics` during the counted edits (0 without metrics).
        var scrapes: Int
        /// The daemon's CPU per scrape, measured after the edits on the idle daemon over
        /// ``scrapesTimed`` scrapes back to back (`nil` without metrics).
        var cpuPerScrape: Duration?
    }

    /// One round: a run without metrics, then one with them.
    struct MetricsCostRound {
        var off: MetricsCostRun
        var on: MetricsCostRun

        var ratio: Double { self.on.cpuPerVersion / self.off.cpuPerVersion }
    }

    /// Scrapes timed back to back on the idle daemon after a run with metrics.
    static let scrapesTimed = 50

    /// `rounds` rounds of two runs of `edits` edits each, metrics off then on.
    func measureMetricsCost(rows: Int, edits: Int, rounds: Int, warmUp: Int = 20) async throws -> [MetricsCostRound] {
        var results: [MetricsCostRound] = []
        for round in 0..<rounds {
            let off = try await self.measureMetricsCostRun(rows: rows, edits: edits, warmUp: warmUp, metrics: false)
            let on = try await self.measureMetricsCostRun(rows: rows, edits: edits, warmUp: warmUp, metrics: true)
            results.append(MetricsCostRound(off: off, on: on))
            print(
                "  round \(round + 1): off \(off.cpuPerVersion.milliseconds), on \(on.cpuPerVersion.milliseconds) "
                    + "(\(on.scrapes) scrapes), on / off \(results[round].ratio.rounded(decimals: 4))")
        }
        return results
    }

    private func measureMetricsCostRun(rows: Int, edits: Int, warmUp: Int, metrics: Bool) async throws -> MetricsCostRun {
        let scratch = try self.scratchDirectory(metrics ? "metrics-on" : "metrics-off")
        var file = try LatencyFile(url: scratch.appendingPathComponent("products.csv"), rows: rows)
        let port = metrics ? try MetricsScraper.freePort() : nil
        let daemon = try await LatencyDaemon(
            binary: self.listsyncd, directory: scratch, watchedFile: file.url, settleAfterClose: self.settle, persistent: self.persistent,
            metricsListen: port.map { "127.0.0.1:\($0)" })
        defer { daemon.stop() }
        let subscriber = try LatencySubscribers(count: 1, socketPath: daemon.socketPath, watch: "products")
        func edit(_ number: Int) throws {
            try file.prepareEdit(number)
            try file.rename()
            _ = try subscriber.arrivals(ofChangeset: UInt64(number + 1))
        }
        for number in 0..<warmUp { try edit(number) }
        let scraper = port.map { MetricsScraper(port: $0) }
        let cpuBefore = try daemon.cpuTime
        let start = ContinuousClock.now
        for number in warmUp..<(warmUp + edits) { try edit(number) }
        let cpu = try daemon.cpuTime - cpuBefore
        let wall = ContinuousClock.now - start
        let scrapes = try scraper?.stop() ?? 0
        var cpuPerScrape: Duration?
        if let port {
            let idleBefore = try daemon.cpuTime
            for _ in 0..<Self.scrapesTimed { try MetricsScraper.scrape(port: port) }
            cpuPerScrape = (try daemon.cpuTime - idleBefore) / Self.scrapesTimed
        }
        daemon.stop()
        try? FileManager.default.removeItem(at: scratch)
        return MetricsCostRun(metrics: metrics, edits: edits, cpuPerVersion: cpu / edits, wall: wall, scrapes: scrapes, cpuPerScrape: cpuPerScrape)
    }

    /// Per round: each run's CPU per version, edits, time and scrapes, and on / off; then the
    /// medians and the spread of the ratio against issue 20's bar.
    static func metricsCostTable(_ rounds: [MetricsCostRound]) -> Table {
        var table = Table(header: [
            "round", "edits per run", "daemon CPU / version, metrics off", "daemon CPU / version, metrics on (scraped every 1 s)",
            "scrapes (run time)", "daemon CPU / scrape (idle, \(Self.scrapesTimed) back to back)", "on / off",
        ])
        for (index, round) in rounds.enumerated() {
            table.rows.append([
                "\(index + 1)", "\(round.on.edits)", round.off.cpuPerVersion.milliseconds, round.on.cpuPerVersion.milliseconds,
                "\(round.on.scrapes) (\(round.on.wall.milliseconds))", round.on.cpuPerScrape?.milliseconds ?? "—", round.ratio.rounded(decimals: 4),
            ])
        }
        let ratios = rounds.map(\.ratio).sorted()
        func median<T>(_ sorted: [T], _ mean: (T, T) -> T) -> T? {
            guard !sorted.isEmpty else { return nil }
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : mean(sorted[middle - 1], sorted[middle])
        }
        let offs = rounds.map(\.off.cpuPerVersion).sorted()
        let ons = rounds.map(\.on.cpuPerVersion).sorted()
        if let ratio = median(ratios, { ($0 + $1) / 2 }), let off = median(offs, { ($0 + $1) / 2 }), let on = median(ons, { ($0 + $1) / 2 }) {
            table.rows.append([
                "median of \(rounds.count)", "", off.milliseconds, on.milliseconds, "\(rounds.map(\.on.scrapes).reduce(0, +)) in all",
                median(rounds.compactMap(\.on.cpuPerScrape).sorted(), { ($0 + $1) / 2 })?.milliseconds ?? "—",
                "\(ratio.rounded(decimals: 4)) (\(ratios[0].rounded(decimals: 4)) … \(ratios[ratios.count - 1].rounded(decimals: 4))); bar ≤ 1.03: "
                    + (ratio <= 1.03 ? "met" : "not met"),
            ])
        }
        return table
    }
}
