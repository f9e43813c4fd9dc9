import ListSyncProtocol
import NIOPosix

extension FileTracker {
    /// What one write of the watch's state left: the store (a write changes it) and why the
    /// write failed, if it did.
    struct StateWrite: Sendable {
        var store: WatchStateStore
        var failure: StateFileError?
        /// When the write began and ended, on its thread (``VersionTimeline``).
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant

        /// Runs `write` on `store` and keeps what it left.
        init(_ store: WatchStateStore, write: (inout WatchStateStore) throws(StateFileError) -> Void) {
            var store = store
            self.started = .now
            do {
                try write(&store)
                self.failure = nil
            } catch {
                self.failure = error
            }
            self.ended = .now
            self.store = store
        }
    }

    /// Makes `ingestion` durable on `pool`: its new version with its changeset, or — when there
    /// is none — the live version under the watch's current path, and the staged slot abandoned.
    func save(_ ingestion: Ingestion, to store: WatchStateStore, watch: WatchConfiguration, pool: NIOThreadPool) async throws -> StateWrite {
        try await pool.runIfActive {
            StateWrite(store) { store throws(StateFileError) in
                if let version = ingestion.publication?.version {
                    try store.save(version, changeset: ingestion.publication?.changesetLine, watch: watch, staged: ingestion.staged)
                } else {
                    ingestion.staged?.abandon()
                    if let live = ingestion.machine.state.lastGood {
                        try store.follow(path: watch.path, version: live)
                    }
                }
            }
        }
    }

    /// Appends the changeset just published to the log, off the path to subscribers. A failure
    /// is only logged: the next save tries again before it writes anything, and fails (and says
    /// so in the status) if it still cannot.
    func settleLog(of store: WatchStateStore, pool: NIOThreadPool) async throws -> WatchStateStore {
        let settled = try await pool.runIfActive {
            StateWrite(store) { store throws(StateFileError) in try store.settleLog() }
        }
        if let error = settled.failure {
            self.logger.warning("cannot append the published changeset to the log yet", metadata: ["error": "\(error)"])
        }
        return settled.store
    }

    /// Logs that the log on disk started afresh for want of space, if it did.
    func reportDroppedHistory(of store: inout WatchStateStore) {
        guard let (seq, error) = store.takeDroppedHistory() else { return }
        self.logger.warning(
            "the disk has no room for the history: the log on disk now starts at version \(seq) (same epoch); after a restart, clients with an older cursor get a snapshot",
            metadata: ["error": "\(error)"])
    }

    /// Reports that the version just read could not be saved, and asks for another read later.
    func noteStorageProblem(_ error: StateFileError, machine: inout StateMachine) {
        let serving = machine.state.lastGood.map { "version \($0.cursor) stays live" } ?? "nothing is published"
        self.logger.error("cannot save the watch's state; \(serving) until it can", metadata: ["error": "\(error)"])
        let problem = WatchProblem(message: "cannot save the watch's state (\(error)): \(serving) until it can")
        if let status = machine.noteStorageProblem(problem) {
            var publication = WatchPublication(status: status)
            publication.savesState = false
            self.feed.publish(publication)
        }
        Task { [readRequests] in
            try? await Task.sleep(for: Self.storageRetryInterval)
            readRequests.yield(.reread)
        }
    }
}
