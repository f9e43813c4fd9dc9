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
    private let configuration: Mutex<Settings>
    /// Where the watch's versions are made durable before they are published; moved into
    /// ``run(pool:)``, which owns it from then on.
    let initialStore: WatchStateStore
    /// "Look at the file again" (``Request``); holds at most one pending request (the newest),
    /// which is the coalescing.
    let readRequests: AsyncStream<Request>.Continuation
    private let requests: AsyncStream<Request>
    /// Since when a writer holds the file, as the watcher last said (`nil`: none does). Kept
    /// apart from the requests, which coalesce, so no request reads a file a writer holds.
    private let writer = Mutex<ContinuousClock.Instant?>(nil)
    private let restored: Latch
    /// Fired when ``run(pool:)`` returns.
    private let ended = Latch()
    private let firstRead: Latch
    /// The test hook that holds the restore (see ``RestoreHold``).
    let restoreHold: RestoreHold
    /// Whether ``run(pool:)`` deletes the watch's state when it ends: the watch was removed.
    private let removesState = Atomic(false)
    let logger: Logger
    /// The storage of the version before the live one — file bytes and records — which the next
    /// read writes into when nothing else holds it any more (``ListBufferPool``), released once
    /// the watch has been idle for as long as ``SpareMemoryRelease`` says; what it holds is the
    /// watch's `listsync_watch_spare_memory_bytes`.
    let buffers: ListBufferPool
    /// The least time after its last read the watch keeps ``buffers`` (``idleBufferRelease``; tests set it).
    private let bufferIdleDelay: Duration

    /// How long to wait before trying again to save state that could not be saved (a full disk).
    static let storageRetryInterval = Duration.seconds(1)

    /// The least time after its last read a watch keeps the storage kept for its next version:
    /// a burst of saves reuses it; saves that come at a regular interval keep it longer
    /// (``SpareMemoryRelease``, up to `spare_memory_max_idle_ms`).
    static let idleBufferRelease = Duration.milliseconds(1500)

    /// A tracker for `watch`, publishing to `feed`, saving to `store`. Call ``run(pool:)`` to start it.
    /// It keeps the storage for its next version at least `bufferIdleDelay` after a read and at
    /// most `spareMemoryMaxIdle` (``SpareMemoryRelease``).
    init(
        watch: WatchConfiguration, feed: WatchFeed, store: WatchStateStore, restoreHold: RestoreHold = .none,
        bufferIdleDelay: Duration = FileTracker.idleBufferRelease,
        spareMemoryMaxIdle: Duration = DaemonConfiguration.Defaults.spareMemoryMaxIdle, logger: Logger
    ) {
        self.feed = feed
        self.buffers = ListBufferPool { [metrics = feed.metrics] bytes in metrics?.spareMemoryBytes.set(to: Double(bytes)) }
        self.bufferIdleDelay = bufferIdleDelay
        self.restoreHold = restoreHold
        self.configuration = Mutex(
            Settings(
                watch: watch, newEpoch: nil, historyLength: store.historyLength, historyMaxBytes: store.historyMaxBytes,
                spareMemoryMaxIdle: spareMemoryMaxIdle))
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

    /// Keeps the storage for the next version at most `maxIdle` after a read (`spare_memory_max_idle_ms`,
    /// ``SpareMemoryRelease``), from the next request on.
    func keepSpareMemory(atMost maxIdle: Duration) {
        self.configuration.withLock { $0.spareMemoryMaxIdle = maxIdle }
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

    /// Whether the watch's saved state has been read back (a read may be in progress since).
    var isRestored: Bool {
        self.restored.isFired
    }

    /// Returns once ``run(pool:)`` has ended — after ``stop(removingState:)``, the read in
    /// progress saved, published and its changeset in the log — or at `deadline`, or when the
    /// task is cancelled, whichever comes first.
    func waitUntilEnded(before deadline: ContinuousClock.Instant) async {
        while !self.ended.isFired, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))
        }
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
            self.ended.fire()
        }
        guard var tracking = await self.restore(pool: pool) else { return }
        self.restored.fire()
        tracking.machine.buffers = self.buffers
        tracking.machine.lineSpoolDirectory = tracking.store.mapsSavedBytes ? tracking.store.directory : nil
        var bufferRelease: Task<Void, Never>?
        var spareMemory = SpareMemoryRelease(minimum: self.bufferIdleDelay, maximum: self.settings(takingEpoch: false).spareMemoryMaxIdle)
        defer {
            bufferRelease?.cancel()
            self.buffers.release()
        }
        for await request in self.requests {
            bufferRelease?.cancel()
            defer { bufferRelease = self.releaseBuffersWhenIdle(after: spareMemory.delay) }
            let current = self.settings(takingEpoch: false)
            spareMemory.maximum = current.spareMemoryMaxIdle
            switch Plan(request, writer: self.writer.withLock { $0 }, publishesWhileWriting: current.watch.publishWhileWriting) {
            case .nothing:
                continue
            case .noteWriting(let since):
                self.noteWriting(since: since, machine: &tracking.machine)
                self.firstRead.fire()
                continue
            case .read(let check, let completeLinesOnly):
                spareMemory.noteRead(at: .now)
                do {
                    let used = try await self.update(
                        &tracking, settings: self.settings(takingEpoch: true), check: check, completeLinesOnly: completeLinesOnly, pool: pool)
                    guard used else { continue }
                } catch is CancellationError {
                    // The daemon is stopping (perhaps because it could not start): whatever made it
                    // stop is reported where it happened, not drowned out here.
                    return
                } catch {
                    self.logger.error("the thread pool refused work; the tracker stops", metadata: ["error": "\(error)"])
                    return
                }
            }
            if case .loading = tracking.machine.state, tracking.machine.storageProblem == nil {} else {
                self.firstRead.fire()
            }
        }
        if self.removesState.load(ordering: .relaxed) {
            do {
                try tracking.store.remove()
            } catch {
                self.logger.warning("cannot delete the state of the removed watch", metadata: ["error": "\(error)"])
            }
        } else {
            await self.stopCleanly(&tracking.store, pool: pool)
        }
    }

    /// One read of the file, step by step: read it, confirm that nobody wrote it meanwhile,
    /// ingest what it holds, save the new version, publish it. A version that cannot be saved is
    /// not published, and `tracking.machine` stays at the last durable one.
    ///
    /// - Returns: Whether the read was used; `false` when it was refused as possibly torn.
    private func update(
        _ tracking: inout Tracking, settings: Settings, check: CompletenessCheck?, completeLinesOnly: Bool, pool: NIOThreadPool
    ) async throws -> Bool {
        if let newEpoch = settings.newEpoch {
            tracking.machine.startEpoch(newEpoch)
        }
        tracking.store.historyLength = max(1, settings.historyLength)
        tracking.store.historyMaxBytes = max(1, settings.historyMaxBytes)
        let clock = ContinuousClock()
        let readStarted = clock.now
        var timeline = VersionTimeline(event: check?.lastChange, taken: readStarted)
        let hashes = tracking.machine.hashesWhileReading(options: settings.watch.readOptions)
        let unchanged: (identity: FileIdentity, version: WatchVersion)? = tracking.lastReadIdentity.flatMap { identity in
            tracking.machine.state.lastGood.map { (identity, $0) }
        }
        let sharing = tracking.machine.sharingSource(options: settings.watch.readOptions)
        // Issue 19: a version read whole that will be saved whole (the first of an epoch) is
        // copied into its checkpoint slot as it is read, and parsed from a mapping of the copy.
        let copy = !completeLinesOnly && hashes == nil && unchanged == nil && sharing == nil ? tracking.store.openSlotCopy() : nil
        let read: FileRead
        do {
            read = try await self.read(
                settings.watch, check: check, completeLinesOnly: completeLinesOnly, hashes: hashes, unchanged: unchanged, sharing: sharing,
                copying: copy, pool: pool)
        } catch {
            copy?.abandon()
            throw error
        }
        self.feed.metrics?.readDuration.record(readStarted.duration(to: clock.now))
        timeline.readStarted = read.started
        timeline.readEnded = read.ended
        guard await self.confirm(read) else {
            // Written during the read, so possibly torn: the watcher announces the file again
            // once the writer is done. What was copied into the slot is dropped with it.
            copy?.abandon()
            return false
        }
        timeline.confirmed = clock.now
        if !completeLinesOnly, case .success(.present(_, let identity)) = read.content {
            tracking.lastReadIdentity = identity
        } else {
            tracking.lastReadIdentity = nil
        }
        let saved = try await self.ingestAndSave(
            read.content, hashes: read.hashes, shared: read.shared, copied: copy, tracking: tracking, watch: settings.watch, pool: pool)
        if saved.ingestion.publication?.version != nil, saved.write.failure == nil {
            // With sync_before_publish = false: the write before the publication and the flush after it.
            let flush = saved.flushed.map { (saved.published ?? saved.write.ended).duration(to: $0) } ?? .zero
            self.feed.metrics?.stateSyncDuration.record(saved.write.started.duration(to: saved.write.ended) + flush)
        }
        timeline.ingestStarted = saved.ingestion.started
        timeline.ingested = saved.ingestion.ended
        timeline.saveStarted = saved.write.started
        timeline.journalAppendStarted = saved.write.store.lastJournalAppendStarted
        if saved.flush != nil {
            timeline.written = saved.write.ended
            timeline.synced = saved.flushed
        } else {
            timeline.synced = saved.write.ended
        }
        timeline.publishing = saved.publishing
        tracking.store = saved.write.store
        self.reportDroppedHistory(of: &tracking.store)
        if let error = saved.write.failure {
            // Not durable, so not published: the machine stays at the last durable version.
            self.noteStorageProblem(error, machine: &tracking.machine)
        } else if let release = saved.release {
            try await self.finishPublishing(
                release, published: saved.published, tracking: &tracking, changedAt: check?.lastChange, timeline: timeline, pool: pool)
        }
        if let flush = saved.flush, !flush.failures.isEmpty {
            // On the machine the publication left: the next version it publishes starts the epoch.
            self.noteFailedFlush(flush, machine: &tracking.machine)
        }
        return true
    }

    /// Releases ``buffers`` after `delay` (``SpareMemoryRelease/delay``), unless cancelled first
    /// (another request came); at once when `delay` is zero.
    private func releaseBuffersWhenIdle(after delay: Duration) -> Task<Void, Never>? {
        guard delay > .zero else {
            self.buffers.release()
            return nil
        }
        return Task { [buffers, logger] in
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            let released = buffers.release()
            if released > 0 {
                logger.debug("dropped the storage kept for the next version", metadata: ["bytes": "\(released)", "idle": "\(delay)"])
            }
        }
    }

    /// The settings for the next read; a new epoch a reload asked for is taken, so only one read starts it.
    /// The settings as a reload left them. `takingEpoch`: for a read, which takes the new epoch a
    /// reload asked for; a request that reads nothing (a writer holds the file) leaves it for
    /// the read that follows, so it is never lost.
    private func settings(takingEpoch: Bool) -> Settings {
        self.configuration.withLock { configuration in
            defer { if takingEpoch { configuration.newEpoch = nil } }
            return configuration
        }
    }
}
