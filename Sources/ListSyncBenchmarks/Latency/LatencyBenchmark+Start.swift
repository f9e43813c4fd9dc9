import Foundation

extension LatencyBenchmark {
    /// How the daemon that a workload's edits go to came to serve the file.
    ///
    /// After a restart the daemon serves the version it saved, restored from its state files
    /// (held as mappings of them), and reads the next versions from there: what it holds and
    /// touches over the edits may differ from a daemon that read the file itself (session 15
    /// found a restart's peak over spread edits 6.6× a CSV file by a probe, the first load's 2.5×).
    enum Start: Equatable {
        /// The daemon started on the file and read it whole.
        case firstLoad
        /// The daemon started on the file, served it, was stopped as `Stop` says once it
        /// served it, and was started again on the same state directory.
        case restarted(LatencyDaemon.Stop)

        /// The name in labels: `first load`, `restarted after SIGKILL`.
        var label: String {
            switch self {
            case .firstLoad: "first load"
            case .restarted(let stop): "restarted after \(stop.label)"
            }
        }
    }

    /// Starts the benchmark's daemon on `file` (a file of `format` in `scratch`) and waits until
    /// it serves it; for ``Start/restarted(_:)``, stops it once it serves the file and starts it
    /// again. A restarted daemon that saves its state must serve the cursor it served before
    /// (its saved version restored, the file unchanged): anything else is thrown, as a restart
    /// that did not restore what it had saved.
    func startDaemon(in scratch: URL, watching file: URL, format: LatencyFile.Format, start: Start = .firstLoad) async throws -> LatencyDaemon {
        let daemon = try await LatencyDaemon(
            binary: self.listsyncd, directory: scratch, watchedFile: file, settleAfterClose: self.settle, persistent: self.persistent,
            format: format, publishBeforeSync: self.publishesBeforeSync)
        guard case .restarted(let stop) = start else { return daemon }
        daemon.stop(stop)
        let restarted = try await self.startDaemon(in: scratch, watching: file, format: format)
        if self.persistent, restarted.servedCursor != daemon.servedCursor {
            throw LatencySubscribers.Failure(
                description: "restarted after \(stop.label), the daemon serves \(restarted.servedCursor.map(String.init) ?? "no cursor"), "
                    + "not its saved \(daemon.servedCursor.map(String.init) ?? "version"); see \(scratch.path)/listsyncd.log")
        }
        return restarted
    }
}
