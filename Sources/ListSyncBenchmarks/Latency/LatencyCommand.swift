import ArgumentParser
import Foundation

extension ListSyncBenchmarks {
    struct Latency: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "latency",
            abstract: "From the rename of a watched file to the changeset at subscribers (runs listsyncd).",
            discussion: """
                Starts listsyncd (release build, next to this benchmark) on temporary files. Each edit \
                changes one row, writes the whole file to a temporary file and renames it over the \
                watched one; the clock starts at the rename. Reported with and without the daemon's \
                settle delay after a rename (--settle-ms, the daemon's default 20 ms), with the daemon \
                saving its state (issue 12) and without (--state saved,none), beside `wc -l` of the same \
                file timed in the same run (issue 19's baseline: reading the file once) and p50 over it, \
                and the time from each rename's start to its inotify event at a watcher of the \
                benchmark's own (the file system's share: on ext4 a rename over a file first starts \
                the new file's writeback; --writer-sync fsyncs each temporary file before its rename, \
                outside the clock, as a careful writer does). \
                A daemon that reads a complete file renamed over the watched one at once (issue 19 item 5) \
                waits no settle delay for these renames: its "− settle" columns go below zero. The restart workload \
                times a daemon start with a large watch, first and with its state saved, and reads the \
                restarted daemon's resident memory once it serves the watch and its peak (VmRSS, VmHWM: \
                medians of the restarts, over the file's size). The append workload \
                appends --appended-rows rows to the --large-rows file in place (O_APPEND, one write, close; \
                the clock starts before the open) --large-edits times: the daemon waits its settle delay \
                after the close. The fan-out \
                workload connects --subscribers plain sockets at once to one --fan-out-rows list (raising \
                the open-file limit for itself and the daemon), waits for every snapshot, then times \
                --fan-out-edits edits to the last subscriber. The whole-list workload (issue 17 item 4; \
                not run by default) saves a --whole-list-rows CSV (27 MiB for 1M rows; or NDJSON, \
                --whole-list-format) --whole-list-saves \
                times with every row's price changed, the state saved, and reads the daemon's resident \
                memory and state directory size after each save, its growth over the save (VmHWM, reset \
                before it, once the state directory is still, less VmRSS before it) and the time from \
                the rename to the changeset's last part, once with the daemon's default \
                history bounds and once with bounds that never bind (history_max_mib = 100000, \
                history_cache_mib = 65536: the history unbounded in bytes, as before issue 17; \
                --whole-list-history picks). \
                The snapshot-client workload (issue 19 item 4) runs `listsync snapshot` (next to \
                listsyncd) of the --large-rows list --snapshot-runs times, its CSV output to a file \
                (checked equal to the watched file), and reports its wall time and peak resident \
                memory (by GNU time, /usr/bin/time) beside `wc -l` of the file. \
                --edit-places spread changes the large workload's rows at places spread over the whole \
                file (row n × s mod rows, s the integer nearest rows × 0.618… co-prime with rows) rather \
                than moving forward (row n × 7919 mod rows, the default); repeat it to run both, each \
                workload with forward places, then spread ones. The restart-edits workload (not run by \
                default) runs the large workload's edits on a daemon that served the file, was stopped \
                (--restart-signal kill: SIGKILL, term: SIGTERM; both by default) and started again on \
                its state: its RSS once served and its peak restoring, then its peak over the edits \
                (VmHWM reset by clear_refs before them). \
                --large-format ndjson or json makes the large, append and restart workloads' file \
                an NDJSON file or a JSON array (one object a line; an append goes before its closing \
                `]`, written over it in place) with the same fields and key, and the watch that format. \
                The metrics workload (issue 20; not run by default) runs the 10k-row workload \
                --metrics-rounds times with metrics_listen unset and set, alternately, each run a fresh \
                daemon with its state saved and --metrics-edits counted edits; with it set, /metrics is \
                scraped every second over HTTP. It reports the daemon's CPU per version of each run and \
                the median of on / off.
                """
        )

        @Option(help: "The daemon's settle_after_close_ms.")
        var settleMs = 20

        @Option(help: "Edits of the 10k-row file.")
        var smallEdits = 200

        @Option(help: "Edits of the 1M-row file.")
        var largeEdits = 10

        @Option(help: "Rows of the large file (10000000 for issue 19's 10M-row workload: about 520 MB).")
        var largeRows = 1_000_000

        @Option(help: "The format of the large, append and restart workloads' file: csv, ndjson, json (one JSON array, an object a line).")
        var largeFormat: LatencyFile.Format = .csv

        @Option(help: "Whether the large and append workloads also time a ListSyncClient mirror (it holds the whole list in the benchmark's memory: false for --large-rows 10000000).")
        var largeMirror = true

        @Option(help: "Rows appended per edit in the append workload (to the large file, in place).")
        var appendedRows = 1_000

        @Option(help: "Subscribers of the fan-out workload; repeat for several runs.")
        var subscribers: [Int] = [1_000, 10_000]

        @Option(help: "Rows of the fan-out workload's list.")
        var fanOutRows = 100_000

        @Option(help: "Edits of the fan-out workload.")
        var fanOutEdits = 20

        @Option(help: "Where the one-row edits of the large and restart-edits workloads fall: forward (rows moving forward, today's), spread (over the whole file); repeat for both.")
        var editPlaces: [LatencyFile.EditPlaces] = [.forward]

        @Option(help: "How the restart-edits workload stops the daemon before it starts it again: kill (SIGKILL), term (SIGTERM); repeat for both.")
        var restartSignal: [LatencyDaemon.Stop] = [.kill, .term]

        @Option(help: "Workloads: small, large, append, fan-out, restart, snapshot-client; whole-list, metrics, restart-edits (not by default).")
        var workload: [String] = ["small", "large", "append", "fan-out", "restart", "snapshot-client"]

        @Option(help: "Runs of `listsync snapshot` of the large list (the snapshot-client workload).")
        var snapshotRuns = 5

        @Option(help: "Rows of the whole-list workload's file.")
        var wholeListRows = 1_000_000

        @Option(help: "Saves of the whole-list workload, each changing every row.")
        var wholeListSaves = 8

        @Option(help: "The whole-list workload's file formats (csv, ndjson, json); repeat for several runs.")
        var wholeListFormat: [LatencyFile.Format] = [.csv]

        @Option(help: "The whole-list workload's history bounds: defaults, unbounded (history_max_mib = 100000, history_cache_mib = 65536); repeat for both.")
        var wholeListHistory: [String] = ["defaults", "unbounded"]

        @Option(help: "Rounds of the metrics workload, each a run with metrics_listen unset, then one with it set.")
        var metricsRounds = 8

        @Option(help: "Counted edits of each run of the metrics workload (after 20 not counted).")
        var metricsEdits = 400

        @Option(help: "The daemon's state: saved (as shipped), none (LISTSYNCD_BENCHMARK_NO_STATE=1, for comparison).")
        var state: [String] = ["saved", "none"]

        @Option(help: "Restarts of the restart workload.")
        var restarts = 5

        @Option(help: "Where to write the files (about 100 MB for 1M rows).")
        var directory = "/tmp/listsync-latency-benchmark"

        @Option(help: "The listsyncd binary. Default: next to this benchmark.")
        var listsyncd: String?

        @Flag(help: "fsync each version's temporary file before renaming it over the watched one (before the clock starts), as a careful writer saves.")
        var writerSync = false

        @Flag(help: "Run the daemon with sync_before_publish = false: each version published once written, flushed right after (issue 19; a daemon before the setting refuses it).")
        var publishBeforeSync = false

        @Flag(help: "Rename on a thread of its own while the subscribers are read (the large workload): a rename over a large file returns only once the replaced file's blocks are freed, after the daemon may have published; read on the renaming thread, a changeset that came sooner is timed when the rename returns.")
        var renameApart = false

        @Option(help: "Milliseconds to wait before each edit of the large and append workloads (0: back to back; over 1500, each save comes after an idle moment: the daemon keeps its recycled storage for saves at a regular interval up to its spare_memory_max_idle_ms, 30 s by default, at most 10 s apart).")
        var pauseMs = 0

        func run() async throws {
            let here = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
            var benchmark = LatencyBenchmark(
                listsyncd: self.listsyncd.map { URL(fileURLWithPath: $0) } ?? here.appendingPathComponent("listsyncd"),
                directory: URL(fileURLWithPath: self.directory), settle: .milliseconds(self.settleMs))
            benchmark.writerSyncs = self.writerSync
            benchmark.publishesBeforeSync = self.publishBeforeSync
            benchmark.renamesApart = self.renameApart
            benchmark.pauseBeforeEdit = .milliseconds(self.pauseMs)
            var results: [LatencyBenchmark.Result] = []
            var restarts: [(state: String, rows: String, result: LatencyBenchmark.RestartResult)] = []
            let largeFormat = self.largeFormat.label
            for state in self.state {
                benchmark.persistent = state != "none"
                let label = " (state \(state))"
                if self.workload.contains("small") {
                    print("- 10k rows, state \(state): \(self.smallEdits) edits")
                    results += try await benchmark.measure(
                        rows: 10_000, edits: self.smallEdits, workload: "10k rows" + label, bar: "p50 − settle ≤ 5 ms", withMirror: true)
                }
                var starts: [LatencyBenchmark.Start] = self.workload.contains("large") ? [.firstLoad] : []
                if self.workload.contains("restart-edits") {
                    starts += self.restartSignal.map { .restarted($0) }
                }
                for places in self.editPlaces {
                    for start in starts {
                        let workload = "\(self.largeRows / 1000)k rows \(largeFormat), one row changed at \(places.label), \(start.label)" + label
                        print("- \(workload): \(self.largeEdits) edits")
                        results += try await benchmark.measure(
                            rows: self.largeRows, edits: self.largeEdits, workload: workload, bar: "≤ 300 ms", withMirror: self.largeMirror,
                            format: self.largeFormat, places: places, start: start)
                    }
                }
                if self.workload.contains("append") {
                    print("- \(self.largeRows) rows \(largeFormat), state \(state): \(self.largeEdits) appends of \(self.appendedRows) rows")
                    results += try await benchmark.measure(
                        rows: self.largeRows, edits: self.largeEdits,
                        workload: "\(self.largeRows / 1000)k rows \(largeFormat), \(self.appendedRows) rows appended" + label,
                        bar: "p50 − settle ≤ 15 ms", withMirror: self.largeMirror, edit: .append(rows: self.appendedRows), format: self.largeFormat)
                }
                if self.workload.contains("restart") {
                    print("- restart, \(self.largeRows) rows \(largeFormat), state \(state): \(self.restarts) restarts")
                    let result = try await benchmark.measureRestart(rows: self.largeRows, runs: self.restarts, format: self.largeFormat)
                    restarts.append((state, "\(self.largeRows) \(largeFormat)", result))
                }
            }
            benchmark.persistent = true
            if !results.isEmpty {
                print()
                print(benchmark.latencyTable(results).markdown)
            }
            if !restarts.isEmpty {
                print()
                print(LatencyBenchmark.restartTable(restarts).markdown)
            }
            if self.workload.contains("fan-out") {
                try Self.raiseOpenFileLimit(above: (self.subscribers.max() ?? 0) + 100)
                var fanOut: [LatencyBenchmark.FanOutResult] = []
                for subscribers in self.subscribers {
                    print("- \(subscribers) subscribers, \(self.fanOutRows) rows: \(self.fanOutEdits) edits")
                    fanOut.append(try await benchmark.measureFanOut(subscribers: subscribers, rows: self.fanOutRows, edits: self.fanOutEdits))
                }
                print()
                print(LatencyBenchmark.fanOutTable(fanOut).markdown)
            }
            if self.workload.contains("snapshot-client") {
                print("- snapshot client, \(self.largeRows) rows: \(self.snapshotRuns) runs")
                let result = try await benchmark.measureSnapshotClient(rows: self.largeRows, runs: self.snapshotRuns)
                print()
                print(LatencyBenchmark.snapshotClientTable([result]).markdown)
            }
            if self.workload.contains("metrics") {
                print("- metrics off / on, 10k rows, state saved: \(self.metricsRounds) rounds of \(self.metricsEdits) edits each")
                let rounds = try await benchmark.measureMetricsCost(rows: 10_000, edits: self.metricsEdits, rounds: self.metricsRounds)
                print()
                print(LatencyBenchmark.metricsCostTable(rounds).markdown)
            }
            if self.workload.contains("whole-list") {
                let runs: [(history: String, bounds: LatencyDaemon.HistoryBounds?)] = [
                    ("defaults", nil),
                    ("unbounded", LatencyDaemon.HistoryBounds(maxMiB: 100_000, cacheMiB: 65_536)),
                ].filter { self.wholeListHistory.contains($0.history) }
                var wholeList: [LatencyBenchmark.WholeListResult] = []
                for format in self.wholeListFormat {
                    for run in runs {
                        print("- whole list, \(self.wholeListRows) rows \(format.label), history \(run.history): \(self.wholeListSaves) saves")
                        wholeList.append(
                            try await benchmark.measureWholeList(
                                rows: self.wholeListRows, saves: self.wholeListSaves, bounds: run.bounds, history: run.history, format: format))
                    }
                }
                print()
                print(LatencyBenchmark.wholeListTable(wholeList).markdown)
                print()
                print(LatencyBenchmark.wholeListSavesTable(wholeList).markdown)
            }
        }

        /// Raises the soft open-file limit to the hard one, which the daemon inherits: each
        /// subscriber is a descriptor here and one in the daemon.
        private static func raiseOpenFileLimit(above needed: Int) throws {
            var limit = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            guard limit.rlim_cur >= needed else {
                throw LatencySubscribers.Failure(description: "the open-file limit is \(limit.rlim_cur); \(needed) are needed (ulimit -Hn)")
            }
        }
    }
}
