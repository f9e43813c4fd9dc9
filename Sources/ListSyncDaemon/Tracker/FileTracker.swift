import FileWatching
import ListFormats
import ListSyncProtocol
import Logging
import NIOPosix
import Synchronization

/// Follows one watched file: reads every version the watcher announces, turns it into at most one
/// publication (``StateMachine``) and hands that to the watch's ``WatchFeed``.
///
/// Reading, parsing, diffing and encoding block, so they run on a thread pool — never on the
/// watcher's thread or an event loop — one version at a time per tracker. Announcements that
/// arrive meanwhile are coalesced into one more read: a burst of saves costs at most two reads,
/// and the last one sees the final content. A read prompted by an announcement with a
/// ``CompletenessCheck`` is used only once the check confirms that nobody was writing the file
/// during the read, so a half-written file is never published.
final class FileTracker: Sendable {
    /// Where the tracker publishes.
    let feed: WatchFeed
    /// The watch as configured, the history a reload asked the next read to start, and how many
    /// changesets (and bytes of them) the state keeps.
    private let configuration: Mutex<(watch: WatchConfiguration, newEpoch: Epoch?, historyLength: Int, historyMaxBytes: Int)>
    /// Where the watch's versions are made durable before they are published; moved into
    /// ``run(pool:)``, which owns it from then on.
    private let initialStore: WatchStateStore
    /// "Look at the file again" (``Request``); holds at most one pending request (the newest),
    /// which is the coalescing.
    private let readRequests: AsyncStream<Request>.Continuation
    private let requests: AsyncStream<Request>
    /// Since when a writer holds the file, as the watcher last said (`nil`: none does). Kept
    /// apart from the requests, which coalesce, so no request reads a file a writer holds.
    private let writer = Mutex<ContinuousClock.Instant?>(nil)
    private let restored: Latch
    private let firstRead: Latch
    /// The test hook that holds the restore (see ``RestoreHold``).
    private let restoreHold: RestoreHold
    /// Whether ``run(pool:)`` deletes the watch's state when it ends: the watch was removed.
    private let removesState = Atomic(false)
    private let logger: Logger

    /// How long to wait before trying again to save state that could not be saved (a full disk).
    static let storageRetryInterval = Duration.seconds(1)

    /// A tracker for `watch`, publishing to `feed`, saving to `store`. Call ``run(pool:)`` to start it.
    init(watch: WatchConfiguration, feed: WatchFeed, store: WatchStateStore, restoreHold: RestoreHold = .none, logger: Logger) {
        self.feed = feed
        self.restoreHold = restoreHold
        self.configuration = Mutex((watch, nil, store.historyLength, store.historyMaxBytes))
        self.initialStore = store
        (self.requests, self.readRequests) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.restored = Latch()
        self.firstRead = Latch()
        var logger = logger
        logger[metadataKey: "watch"] = "\(watch.name)"
        self.logger = logger
        // The first read needs no announcement: start loading at once.
        self.readRequests.yield(.reread)
    }

    /// The watch as currently configured.
    var watch: WatchConfiguration {
        self.configuration.withLock { $0.watch }
    }

    /// Takes the watcher's news of the file: a change or its absence (read it again; what is
    /// read is used only if the check confirms it complete), or a writer that holds it (the
    /// status says `writing`; a watch that publishes while writing reads it at the writer bound).
    func fileEvent(_ event: FileWatchEvent) {
        switch event {
        case .changed(_, let check):
            self.writer.withLock { $0 = nil }
            self.readRequests.yield(.announced(check))
        case .missing:
            self.writer.withLock { $0 = nil }
            self.readRequests.yield(.announced(nil))
        case .writing(_, let since):
            self.writer.withLock { $0 = since }
            self.readRequests.yield(.writing)
        case .changedWhileWriting(_, let since):
            self.writer.withLock { $0 = since }
            self.readRequests.yield(.changedWhileWriting)
        }
    }

    /// Applies a new configuration of the watch and reads the file again at once, with the new
    /// options even if the file did not change.
    ///
    /// When the records are identified differently (format, key, section_by) the next valid
    /// version starts a new history, an epoch of its own, and subscribers get a snapshot of it;
    /// otherwise (path, ignore, delimiter, ragged_rows) it is diffed against the last good version
    /// and subscribers get one changeset.
    ///
    /// - Returns: Whether a new epoch starts.
    @discardableResult
    func reconfigure(_ watch: WatchConfiguration) -> Bool {
        let startsEpoch = self.configuration.withLock { configuration in
            let startsEpoch = !watch.fields(differingFrom: configuration.watch).isDisjoint(with: WatchConfiguration.Field.identities)
            if startsEpoch { configuration.newEpoch = Epoch.random() }
            if watch.path != configuration.watch.path {
                // The writer held the old file; the watcher tells about the new one.
                self.writer.withLock { $0 = nil }
            }
            configuration.watch = watch
            return startsEpoch
        }
        self.readRequests.yield(.reread)
        return startsEpoch
    }

    /// Keeps at most `historyLength` changesets, and `maxBytes` of them, in the watch's state
    /// from the next save on.
    func keepHistory(_ historyLength: Int, maxBytes: Int) {
        self.configuration.withLock {
            $0.historyLength = historyLength
            $0.historyMaxBytes = maxBytes
        }
    }

    /// Ends ``run(pool:)`` after the read in progress, if any; with `removingState`, the watch
    /// left the configuration and its state is deleted.
    func stop(removingState: Bool = false) {
        self.removesState.store(removingState, ordering: .relaxed)
        self.readRequests.finish()
    }

    /// Returns once the last published version has been restored from the watch's state (or
    /// there was none), or the tracker stopped: from then on clients can resume.
    func waitUntilRestored() async {
        await self.restored.wait()
    }

    /// Returns once the file has been read for the first time (whatever it held), or the tracker stopped.
    func waitUntilLoaded() async {
        await self.firstRead.wait()
    }

    /// Restores the watch's state, then reads the file whenever asked, until ``stop()``. Every
    /// new version is saved before it is published; one that cannot be saved is not published
    /// (the last durable one stays live, the status says why) and is tried again a second later.
    /// Blocking work runs on `pool`.
    func run(pool: NIOThreadPool) async {
        defer {
            self.restored.fire()
            self.firstRead.fire()
        }
        guard var (machine, store) = await self.restore(pool: pool) else { return }
        self.restored.fire()
        for await request in self.requests {
            let (watch, newEpoch, historyLength, historyMaxBytes) = self.configuration.withLock { configuration in
                defer { configuration.newEpoch = nil }
                return configuration
            }
            let check: CompletenessCheck?
            let completeLinesOnly: Bool
            switch Plan(request, writer: self.writer.withLock { $0 }, publishesWhileWriting: watch.publishWhileWriting) {
            case .nothing:
                continue
            case .noteWriting(let since):
                if let status = machine.noteWriting(since: WallClock.unixMilliseconds(at: since)) {
                    let publication = WatchPublication(status: status)
                    self.log(publication)
                    self.feed.publish(publication)
                }
                self.firstRead.fire()
                continue
            case .read(let readCheck, let linesOnly):
                (check, completeLinesOnly) = (readCheck, linesOnly)
            }
            if let newEpoch {
                machine.startEpoch(newEpoch)
            }
            store.historyLength = max(1, historyLength)
            store.historyMaxBytes = max(1, historyMaxBytes)
            do {
                let read: Result<FileSnapshot, FileReadError>
                let (attempt, checkedRead) = try await pool.runIfActive {
                    // The marks go in right before and right after the read, on its thread.
                    let checkedRead = check?.beginRead()
                    var attempt = Result { () throws(FileReadError) in try FileSnapshot.read(atPath: watch.path) }
                    if completeLinesOnly, watch.format != .json {
                        // Read while its writer holds it: a line not yet finished is no record.
                        attempt = attempt.map { $0.completeLines() }
                    }
                    if case .success(let snapshot) = attempt {
                        checkedRead?.end(with: snapshot)
                    }
                    return (attempt, checkedRead)
                }
                // A read that failed has no content to be torn.
                if let checkedRead, case .success = attempt, await !checkedRead.confirm() {
                    // Written during the read, so possibly torn: the watcher announces the file
                    // again once the writer is done.
                    continue
                }
                read = attempt
                // New content is written to the checkpoint slot while it is parsed and diffed.
                let lastGood = machine.state.lastGood
                let stagingStore = store
                async let staging = pool.runIfActive { () -> WatchStateStore.StagedCheckpoint? in
                    guard case .success(.present(let bytes, _)) = read, bytes != lastGood?.list.bytes else { return nil }
                    return try? stagingStore.stageCheckpoint(of: bytes)
                }
                let ingested = try await pool.runIfActive { [machine] in
                    var machine = machine
                    let publication = machine.ingest(read, options: watch.readOptions)
                    return (machine: machine, publication: publication)
                }
                let staged = try await staging
                let step = try await pool.runIfActive { [store] in
                    var store = store
                    let failure = Result { () throws(StateFileError) in
                        if let version = ingested.publication?.version {
                            try store.save(version, changeset: ingested.publication?.changesetLine, watch: watch, staged: staged)
                        } else {
                            staged?.abandon()
                            if let live = ingested.machine.state.lastGood {
                                try store.follow(path: watch.path, version: live)
                            }
                        }
                    }
                    return (machine: ingested.machine, store: store, publication: ingested.publication, failure: failure)
                }
                store = step.store
                self.reportDroppedHistory(of: &store)
                if case .failure(let error) = step.failure {
                    // Not durable, so not published: the machine stays at the last durable version.
                    self.noteStorageProblem(error, machine: &machine)
                } else {
                    machine = step.machine
                    var publication = step.publication ?? WatchPublication()
                    if machine.storageProblem != nil, let status = machine.noteStorageProblem(nil) {
                        self.logger.notice("the watch's state is saved again")
                        publication.status = status
                    }
                    if !publication.isEmpty {
                        self.log(publication)
                        self.feed.publish(publication)
                    }
                    if publication.version != nil {
                        store = try await self.settleLog(of: store, pool: pool)
                        self.reportDroppedHistory(of: &store)
                    }
                }
            } catch is CancellationError {
                // The daemon is stopping (perhaps because it could not start): whatever made it
                // stop is reported where it happened, not drowned out here.
                return
            } catch {
                self.logger.error("the thread pool refused work; the tracker stops", metadata: ["error": "\(error)"])
                return
            }
            if case .loading = machine.state, machine.storageProblem == nil {} else {
                self.firstRead.fire()
            }
        }
        if self.removesState.load(ordering: .relaxed) {
            do {
                try store.remove()
            } catch {
                self.logger.warning("cannot delete the state of the removed watch", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Appends the changeset just published to the log, off the path to subscribers. A failure
    /// is only logged: the next save tries again before it writes anything, and fails (and says
    /// so in the status) if it still cannot.
    private func settleLog(of store: WatchStateStore, pool: NIOThreadPool) async throws -> WatchStateStore {
        let settled = try await pool.runIfActive { [store] in
            var store = store
            let failure = Result { () throws(StateFileError) in try store.settleLog() }
            return (store: store, failure: failure)
        }
        if case .failure(let error) = settled.failure {
            self.logger.warning("cannot append the published changeset to the log yet", metadata: ["error": "\(error)"])
        }
        return settled.store
    }

    /// Logs that the log on disk started afresh for want of space, if it did.
    private func reportDroppedHistory(of store: inout WatchStateStore) {
        guard let (seq, error) = store.takeDroppedHistory() else { return }
        self.logger.warning(
            "the disk has no room for the history: the log on disk now starts at version \(seq) (same epoch); after a restart, clients with an older cursor get a snapshot",
            metadata: ["error": "\(error)"])
    }

    /// Reads the watch's state back: the machine carries on from the restored version, or starts
    /// the feed's epoch when there is nothing to restore. `nil` when the pool refused the work.
    private func restore(pool: NIOThreadPool) async -> (StateMachine, WatchStateStore)? {
        await self.restoreHold.wait()
        let watch = self.watch
        let store = self.initialStore
        let outcome: (store: WatchStateStore, restoration: WatchStateStore.Restoration, setAside: [DamagedStateFile])
        do {
            outcome = try await pool.runIfActive { [store] in
                var store = store
                let (restoration, setAside) = store.restore(for: watch)
                return (store, restoration, setAside)
            }
        } catch {
            return nil
        }
        // The restore brought the log up to the restored version: if the disk had no room for
        // it, say so now rather than at the next save.
        var restored = outcome.store
        self.reportDroppedHistory(of: &restored)
        for file in outcome.setAside {
            self.logger.notice(
                "a checkpoint does not read whole; \(file.handlingDescription)",
                metadata: ["file": "\(file.damage.path)", "problem": "\(file.damage.reason)"])
        }
        let fresh = StateMachine(watch: self.feed.name, epoch: self.feed.epoch)
        switch outcome.restoration {
        case .restored(let version, let stored, let changesets):
            self.feed.restore(version, changesets: changesets)
            self.logger.info("state restored", metadata: ["cursor": "\(version.cursor)", "changesets": "\(changesets.count)"])
            return (StateMachine(watch: self.feed.name, restoring: version, options: stored.readOptions), restored)
        case .none:
            self.logger.info("no saved state: a new history starts", metadata: ["state": "\(store.directory)"])
        case .identityChanged(let fields):
            self.logger.notice(
                "the watch's \(WatchConfiguration.Field.configurationKeys(fields)) changed since its state was saved: a new history starts")
        case .damaged(let file):
            self.logger.error(
                "damaged state: \(file.damage.path) cannot be used; \(file.handlingDescription); a new history starts",
                metadata: ["file": "\(file.damage.path)", "problem": "\(file.damage.reason)"])
        }
        return (fresh, restored)
    }

    /// Reports that the version just read could not be saved, and asks for another read later.
    private func noteStorageProblem(_ error: StateFileError, machine: inout StateMachine) {
        let serving = machine.state.lastGood.map { "version \($0.cursor) stays live" } ?? "nothing is published"
        self.logger.error("cannot save the watch's state; \(serving) until it can", metadata: ["error": "\(error)"])
        let problem = WatchProblem(message: "cannot save the watch's state (\(error)): \(serving) until it can")
        if let status = machine.noteStorageProblem(problem) {
            self.feed.publish(WatchPublication(status: status))
        }
        Task { [readRequests] in
            try? await Task.sleep(for: Self.storageRetryInterval)
            readRequests.yield(.reread)
        }
    }

    private func log(_ publication: WatchPublication) {
        if let version = publication.version, publication.changesetLine != nil || version.seq == 0 {
            self.logger.info("new version", metadata: ["seq": "\(version.seq)", "rows": "\(version.rowCount)"])
        }
        if let status = publication.status {
            switch status.state {
            case .ok, .loading, .removed:
                self.logger.info("file is ok")
                for warning in status.warnings {
                    self.logger.warning("\(warning.message)", metadata: ["at": "\(warning.position.map(\.description) ?? "-")"])
                }
            case .writing:
                self.logger.info("a writer holds the file open: the last version stays live until it closes the file")
            case .invalid, .missing:
                self.logger.warning("file is \(status.state.rawValue)", metadata: ["problem": "\(status.error?.description ?? "")"])
            }
        }
    }
}
