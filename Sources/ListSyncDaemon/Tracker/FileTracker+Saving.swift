import FileWatching
import ListFormats
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

    /// What saving an ingestion left: the write and, once it succeeded, what became of the
    /// ingestion and when it was handed to subscribers.
    struct Saved: Sendable {
        var ingestion: Ingestion
        var write: StateWrite
        /// What the tracker takes on; `nil` when the write failed (nothing was published).
        var release: Release?
        /// When the publication was handed to the feed, and when the feed returned (having woken
        /// the subscribers); `nil` when nothing was published.
        var publishing: ContinuousClock.Instant?
        var published: ContinuousClock.Instant?
        /// What the flush after the publication did (`sync_before_publish = false`); `nil` when
        /// the version was flushed before it (or nothing was written).
        var flush: PendingSync.Outcome?
        /// When that flush returned.
        var flushed: ContinuousClock.Instant?
    }

    /// Makes `ingestion` durable in `store` on the calling thread (a pool thread) — its new
    /// version with its changeset, or, when there is none, the live version under the watch's
    /// current path and the staged slot abandoned — and only once it is, publishes it on the same
    /// thread: the subscribers are woken right after the flush returns, with no hop through the
    /// tracker's task between them. Nothing is published when the write fails.
    ///
    /// With `sync_before_publish = false` (``WatchStateStore/publishesBeforeSync``) the write
    /// leaves the flush undone: the version is published once written, and flushed right after,
    /// on the same thread (``WatchStateStore/syncPublished()``), before the next version is saved.
    func saveAndPublish(_ ingestion: Ingestion, to store: WatchStateStore, watch: WatchConfiguration) -> Saved {
        let write = StateWrite(store) { store throws(StateFileError) in
            if let version = ingestion.publication?.version {
                try store.save(version, changeset: ingestion.publication?.changesetLine, watch: watch, staged: ingestion.staged)
            } else {
                ingestion.staged?.abandon()
                if let live = ingestion.machine.state.lastGood {
                    try store.follow(path: watch.path, version: live)
                }
            }
        }
        guard write.failure == nil else { return Saved(ingestion: ingestion, write: write, release: nil, publishing: nil, published: nil) }
        var ingestion = ingestion
        // Issue 19: the version saved is held from here on as mappings of the state files that
        // hold its bytes (the same bytes), and of the watch's records file, to which the records
        // not in it yet are written now, before anyone else takes it; its bytes and records in
        // memory go once this save is done with them.
        if let version = ingestion.publication?.version,
            let held = ingestion.machine.holdLive(
                bytes: write.store.mappedLiveBytes(of: version.cursor),
                records: version.list.linearRecords.flatMap { write.store.savedRecords?.mapped($0) }, of: version.cursor)
        {
            ingestion.publication?.version = held
        }
        // What the read and the diff of this version touched of the records file by index —
        // the records around the change, those it replaced included, with the page cache's large
        // folios up to 2 MiB a place — is let go of: nothing else lets it go, and each one-row
        // edit at another place of a 1M-row file left 2 MiB more resident (20 MiB after 10).
        ingestion.publication?.version?.list.linearRecords?.releaseAllMappedPages()
        self.reportRecordsFile(of: write.store)
        var flushed = write
        let release = Release(ingestion)
        if release.savesStateAgain {
            self.logger.notice("the watch's state is saved again")
        }
        guard !release.publication.isEmpty else {
            let flush = flushed.store.syncPublished()
            return Saved(
                ingestion: ingestion, write: flushed, release: release, publishing: nil, published: nil, flush: flush,
                flushed: flush.map { _ in .now })
        }
        let publishing = ContinuousClock.now
        self.feed.publish(release.publication)
        let published = ContinuousClock.now
        // Right after the subscribers are woken, before anything else is saved.
        let flush = flushed.store.syncPublished()
        let flushEnded = flush.map { _ in ContinuousClock.now }
        // Logged once the subscribers are woken: the log's write is not on their way.
        self.log(release.publication)
        return Saved(
            ingestion: ingestion, write: flushed, release: release, publishing: publishing, published: published, flush: flush, flushed: flushEnded)
    }

    /// Reports a failed flush of a version already published (`sync_before_publish = false`):
    /// it may be lost by a crash though clients have it, so the next version starts a new epoch
    /// (subscribers get a snapshot), and a restart before that starts one too (the mark says so,
    /// unless it could not be written: said here).
    func noteFailedFlush(_ flush: PendingSync.Outcome, machine: inout StateMachine) {
        let retried = flush.laterAttemptSucceeded
            ? "a later attempt succeeded, which does not prove the bytes reached the disk"
            : "\(flush.failures.count) attempts failed"
        let marked = flush.markFailure.map { "the mark for the next start could not be written (\($0)), so a restart before the new epoch is saved may resume the old one" }
            ?? "the next start begins a new epoch too"
        self.logger.error(
            "the flush of version \(flush.cursor), already published, failed (\(retried)): it may not be durable; the next version starts a new epoch and subscribers get a snapshot; \(marked)",
            metadata: ["error": "\(flush.failures.first.map { "\($0)" } ?? "")"])
        machine.startEpoch(Epoch.random())
        self.readRequests.yield(.reread)
    }

    /// Ingests `content` (``ingest(_:hashes:into:staging:watch:pool:)``), saves and publishes it
    /// (``saveAndPublish(_:to:watch:)``) on `pool`. When no checkpoint slot is to be staged
    /// beside the parse (the state has a journal, the usual case), all of it runs in one job on
    /// one thread, so no hop between threads separates the parse, the flush and the publication.
    /// `copied`: the slot the read copied `content` into (``WatchStateStore/openSlotCopy()``),
    /// staged from there, or abandoned when nothing is staged.
    func ingestAndSave(
        _ content: Result<FileSnapshot, FileReadError>, hashes: IncrementalListReader.ReadHashes?, shared: SharedRead? = nil,
        copied: WatchStateStore.SlotCopy? = nil, tracking: Tracking, watch: WatchConfiguration, pool: NIOThreadPool
    ) async throws -> Saved {
        let (machine, store) = (tracking.machine, tracking.store)
        guard !store.stagesCheckpoints, copied == nil else {
            let ingestion = try await self.ingest(
                content, hashes: hashes, shared: shared, copied: copied, into: machine, staging: store, watch: watch, pool: pool)
            return try await pool.runIfActive { self.saveAndPublish(ingestion, to: store, watch: watch) }
        }
        let withV1Digest = self.feed.wantsV1Digests
        return try await pool.runIfActive {
            self.saveAndPublish(
                self.ingestNow(content, hashes: hashes, shared: shared, into: machine, watch: watch, withV1Digest: withV1Digest), to: store,
                watch: watch)
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

    /// Logs what happened to the watch's records file (``SavedRecordsFile``), if anything: once
    /// when a write of it fails, once when it works again.
    func reportRecordsFile(of store: WatchStateStore) {
        switch store.savedRecords?.takeReport() {
        case .failed(let error)?:
            self.logger.warning(
                "cannot write the records file in the watch's state directory: the saved versions' records stay in memory (40 bytes a row) rather than mapped from it; versions are saved and published as before, and the file is tried again in \(SavedRecordsFile.retryInterval)",
                metadata: ["error": "\(error)"])
        case .recovered?:
            self.logger.notice("the records file in the watch's state directory is written again: saved versions' records are mapped from it")
        case nil:
            break
        }
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

extension FileTracker {
    /// Flushes the watch's state and removes its mark of versions published before they were
    /// flushed (``WatchStateStore/stopCleanly()``), as the tracker ends: the next start keeps the
    /// epoch even if the machine stops meanwhile. On `pool`, or here when it no longer takes work.
    func stopCleanly(_ store: inout WatchStateStore, pool: NIOThreadPool) async {
        let stopping = store
        let write: StateWrite
        if let done = try? await pool.runIfActive({ StateWrite(stopping) { store throws(StateFileError) in _ = try store.stopCleanly() } }) {
            write = done
        } else {
            write = StateWrite(stopping) { store throws(StateFileError) in _ = try store.stopCleanly() }
        }
        store = write.store
        if let error = write.failure {
            self.logger.warning(
                "cannot flush the watch's state at the stop: the next start after the machine stops begins a new epoch", metadata: ["error": "\(error)"])
        }
    }
}
