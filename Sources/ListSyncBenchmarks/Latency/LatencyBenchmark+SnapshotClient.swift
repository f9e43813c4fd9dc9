import Foundation

extension LatencyBenchmark {
    /// `listsync snapshot` of a large list, run as a user runs it (issue 19 item 4): its wall
    /// time and its peak resident memory, beside `wc -l` of the same file in the same run.
    struct SnapshotClientResult {
        var rows: Int
        var fileSize: Int
        var walls: [Duration]
        /// Each run's peak resident memory (the client's `ru_maxrss`, by GNU time), in bytes.
        var peakMemory: [Int]
        var lineCount: [Duration]
    }

    /// `runs` runs of `listsync snapshot products --output-format csv` (the `listsync` next to
    /// listsyncd) of a `rows`-row file, its output to a file; each timed from the spawn to the
    /// exit (GNU time's own start is in it, a millisecond), its peak memory as GNU time reports it.
    func measureSnapshotClient(rows: Int, runs: Int) async throws -> SnapshotClientResult {
        let scratch = try self.scratchDirectory("snapshot-client-\(rows)")
        let file = try LatencyFile(url: scratch.appendingPathComponent("products.csv"), rows: rows)
        let daemon = try await LatencyDaemon(
            binary: self.listsyncd, directory: scratch, watchedFile: file.url, settleAfterClose: self.settle, persistent: self.persistent)
        defer { daemon.stop() }
        let listsync = self.listsyncd.deletingLastPathComponent().appendingPathComponent("listsync").path
        let output = scratch.appendingPathComponent("snapshot.csv").path
        let peakFile = scratch.appendingPathComponent("snapshot.maxrss").path
        // Through GNU time, which forks the client: the resource usage of a process spawned from
        // here (posix_spawn shares this process's memory until the exec) would count this
        // benchmark's own peak as the client's.
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            throw LatencySubscribers.Failure(description: "the snapshot-client workload needs GNU time at \(time) (Debian: time)")
        }
        let arguments = [time, "-f", "%M", "-o", peakFile, listsync, "snapshot", "products", "--socket", daemon.socketPath, "--output-format", "csv"]
        var walls: [Duration] = []
        var peaks: [Int] = []
        for _ in 0..<runs {
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            var pid = pid_t()
            let start = ContinuousClock.now
            let spawned = posix_spawn(&pid, time, &actions, nil, &argv, environ)
            guard spawned == 0 else {
                throw LatencySubscribers.Failure(description: "posix_spawn \(time): \(String(cString: strerror(spawned)))")
            }
            var status: Int32 = 0
            // Blocks this thread while the client runs; nothing else runs meanwhile.
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            walls.append(ContinuousClock.now - start)
            guard status == 0 else { throw LatencySubscribers.Failure(description: "listsync snapshot exited with status \(status)") }
            let reported = try String(contentsOfFile: peakFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let kibibytes = Int(reported) else { throw LatencySubscribers.Failure(description: "\(time) reported \(reported)") }
            peaks.append(kibibytes * 1024)
        }
        guard FileManager.default.contentsEqual(atPath: output, andPath: file.url.path) else {
            throw LatencySubscribers.Failure(description: "listsync snapshot did not print the file")
        }
        let size = (try FileManager.default.attributesOfItem(atPath: file.url.path)[.size] as? Int) ?? 0
        return SnapshotClientResult(
            rows: rows, fileSize: size, walls: walls, peakMemory: peaks, lineCount: try LineCountBaseline.times(of: file.url, runs: runs))
    }

    static func snapshotClientTable(_ results: [SnapshotClientResult]) -> Table {
        Table(
            header: ["rows", "file", "runs", "snapshot p50", "snapshot max", "client peak RSS (max)", "RSS / file", "`wc -l` p50", "bar"],
            rows: results.map { result in
                let walls = LatencySamples(result.walls)
                let peak = result.peakMemory.max() ?? 0
                return [
                    "\(result.rows)", "\(result.fileSize >> 20) MiB", "\(result.walls.count)", walls.p50.milliseconds, walls.max.milliseconds,
                    "\(peak >> 20) MiB", String(format: "%.2f×", Double(peak) / Double(max(result.fileSize, 1))),
                    LatencySamples(result.lineCount).p50.milliseconds, "≤ 2 s, RSS ≤ 1.5 × file",
                ]
            })
    }
}
