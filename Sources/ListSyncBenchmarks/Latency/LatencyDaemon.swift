import ArgumentParser
import Foundation
import ListSyncClient
import ListSyncProtocol

/// A `listsyncd` started for the benchmark on a temporary configuration: one watch, the given
/// settle delay after a close or rename, its state saved in `directory/state` or not at all.
final class LatencyDaemon {
    let directory: URL
    let socketPath: String
    let watchedFile: URL
    let process: Process
    /// How long after it was started the daemon served the watch.
    let startup: Duration
    /// The cursor of the version the daemon served first: the file loaded, or the saved version
    /// restored (the same cursor as before the restart) and the file found unchanged.
    let servedCursor: Cursor?

    /// The daemon's bounds on each watch's history, in MiB (issue 17 item 4).
    struct HistoryBounds {
        /// `history_max_mib`: the changesets kept on disk.
        var maxMiB: Int
        /// `history_cache_mib`: the newest changesets kept in memory.
        var cacheMiB: Int

        /// The lines of `listsyncd.toml` that set them.
        var configuration: String {
            "history_max_mib = \(self.maxMiB)\nhistory_cache_mib = \(self.cacheMiB)\n"
        }
    }

    /// Starts `binary` watching `watchedFile` (which must exist) as `products`, keyed by `sku`,
    /// and waits until it serves the file. Without `persistent`, the daemon saves no state
    /// (`LISTSYNCD_BENCHMARK_NO_STATE=1`), for a comparison. Without `historyBounds`, the daemon
    /// bounds each watch's history by its defaults. With `metricsListen` (`"HOST:PORT"`), the
    /// daemon serves its metrics there (`metrics_listen`, issue 20). The watch's `format` is
    /// `format`'s (by default, a CSV). With `publishBeforeSync`, the daemon publishes each
    /// version before it flushes it (`sync_before_publish = false`).
    init(
        binary: URL, directory: URL, watchedFile: URL, settleAfterClose: Duration, persistent: Bool = true,
        historyBounds: HistoryBounds? = nil, metricsListen: String? = nil, format: LatencyFile.Format = .csv, publishBeforeSync: Bool = false
    ) async throws {
        self.directory = directory
        self.socketPath = directory.appendingPathComponent("d.sock").path
        self.watchedFile = watchedFile
        let configuration = directory.appendingPathComponent("listsyncd.toml")
        let settle = settleAfterClose.components.seconds * 1000 + settleAfterClose.components.attoseconds / 1_000_000_000_000_000
        try """
            socket = "\(self.socketPath)"
            state_directory = "\(directory.appendingPathComponent("state").path)"
            settle_after_close_ms = \(settle)
            \(historyBounds?.configuration ?? "")
            \(metricsListen.map { "metrics_listen = \"\($0)\"" } ?? "")
            \(publishBeforeSync ? "sync_before_publish = false" : "")
            [[watch]]
            name = "products"
            path = "\(watchedFile.path)"
            format = "\(format.rawValue)"
            key = ["sku"]

            """.write(to: configuration, atomically: true, encoding: .utf8)
        self.process = Process()
        self.process.executableURL = binary
        self.process.arguments = ["--config", configuration.path]
        self.process.environment = ProcessInfo.processInfo.environment.merging(["LISTSYNCD_BENCHMARK_NO_STATE": persistent ? "0" : "1"]) { $1 }
        let log = directory.appendingPathComponent("listsyncd.log")
        // Appended to: a daemon restarted on the same directory adds to the log of the one before.
        guard FileManager.default.fileExists(atPath: log.path) || FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw LatencySubscribers.Failure(description: "cannot create \(log.path)")
        }
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        self.process.standardOutput = handle
        self.process.standardError = handle
        let started = ContinuousClock.now
        try self.process.run()
        let client = ListSyncClient(configuration: ClientConfiguration(socketPath: self.socketPath, reconnect: .never))
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            if let watches = try? await client.watches(), let watch = watches.first, watch.state == .ok {
                self.startup = ContinuousClock.now - started
                self.servedCursor = watch.cursor
                return
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw LatencySubscribers.Failure(description: "listsyncd did not load \(watchedFile.path); see \(log.path)")
    }

    /// The CPU time the daemon has used so far, user and system, over all its threads (those
    /// that ended included), read from its process CPU-time clock (`clock_getcpuclockid`) to the
    /// nanosecond: the part of the latency that is the daemon's own work, whatever else the
    /// machine runs. (`/proc/PID/stat` counts in ticks of 10 ms, too coarse to tell 1 % apart.)
    var cpuTime: Duration {
        get throws {
            var clock = clockid_t()
            let status = clock_getcpuclockid(self.process.processIdentifier, &clock)
            guard status == 0 else {
                throw LatencySubscribers.Failure(description: "clock_getcpuclockid: \(String(cString: strerror(status)))")
            }
            var time = timespec()
            guard clock_gettime(clock, &time) == 0 else {
                throw LatencySubscribers.Failure(description: "clock_gettime: \(String(cString: strerror(errno)))")
            }
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }
    }

    /// The daemon's peak resident memory so far (`VmHWM` of `/proc/PID/status`), in bytes.
    var peakMemory: Int {
        get throws { try self.memory("VmHWM") }
    }

    /// Resets the daemon's peak resident memory to what it holds now (`5` written to
    /// `/proc/PID/clear_refs`), so that ``peakMemory`` then tells the peak from here on.
    func resetPeakMemory() throws {
        let path = "/proc/\(self.process.processIdentifier)/clear_refs"
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw LatencySubscribers.Failure(description: "cannot open \(path)")
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data("5".utf8))
    }

    /// The daemon's resident memory once it has settled after serving a version: `VmRSS`
    /// sampled every 100 ms until it has moved by less than 1 MiB over `quiet`, or `limit`
    /// passed. A daemon that saves its state swaps a version's records and bytes for mappings
    /// of its files after the save, some time after it serves it: read at once, `VmRSS` would
    /// still hold them in anonymous memory, and a peak reset there would count that memory as
    /// the edits'.
    func settledResidentMemory(quiet: Duration = .milliseconds(600), limit: Duration = .seconds(10)) async throws -> Int {
        let deadline = ContinuousClock.now + limit
        var samples: [Int] = [try self.residentMemory]
        let window = Int(quiet / .milliseconds(100))
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            samples.append(try self.residentMemory)
            if samples.count > window {
                let recent = samples.suffix(window + 1)
                if recent.max()! - recent.min()! < 1 << 20 { break }
            }
        }
        return samples.last!
    }

    /// The daemon's resident memory now (`VmRSS` of `/proc/PID/status`), in bytes.
    var residentMemory: Int {
        get throws { try self.memory("VmRSS") }
    }

    /// A `kB` field of `/proc/PID/status`, in bytes.
    private func memory(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(self.process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw LatencySubscribers.Failure(description: "no \(field) in /proc status") }
        return kibibytes << 10
    }

    /// The size of the daemon's state directory: the sum of its files' sizes, like `du -sb`
    /// without the directories' own blocks.
    var stateSize: Int {
        get throws {
            let state = self.directory.appendingPathComponent("state")
            guard let files = FileManager.default.enumerator(at: state, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else {
                throw LatencySubscribers.Failure(description: "cannot list \(state.path)")
            }
            var total = 0
            for case let file as URL in files {
                let values = try file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
                if values.isRegularFile == true { total += values.fileSize ?? 0 }
            }
            return total
        }
    }

    /// How the daemon is stopped.
    enum Stop: String, CaseIterable, ExpressibleByArgument {
        /// `SIGKILL`: the daemon ends where it is, as at a crash or the OOM killer; its state is
        /// what it had made durable.
        case kill
        /// `SIGTERM`: the daemon shuts down in order, as `systemctl stop` asks.
        case term

        /// The signal's name: `SIGKILL`, `SIGTERM`.
        var label: String { "SIG" + self.rawValue.uppercased() }

        fileprivate var signal: Int32 { self == .kill ? SIGKILL : SIGTERM }
    }

    /// Stops the daemon (if it still runs) with `stop`'s signal, and waits until it has exited.
    func stop(_ stop: Stop = .term) {
        guard self.process.isRunning else { return }
        kill(self.process.processIdentifier, stop.signal)
        self.process.waitUntilExit()
    }

    deinit {
        self.stop()
    }
}
