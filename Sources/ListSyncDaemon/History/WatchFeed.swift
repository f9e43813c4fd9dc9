import DurableFiles
import ListSyncProtocol
import NIOCore
import Synchronization

/// The live state of one watch, where its tracker publishes and its subscribers read: the current
/// version, the ring of recent changesets, the status, and who is subscribed.
///
/// Trackers write through ``publish(_:)``; connections read on their event loops through
/// ``next(after:)``, each at its own pace — a subscriber is a position in this feed, not a queue, so
/// a slow one costs no memory and never holds up the others. Every lock is held for O(1) work.
final class WatchFeed: Sendable {
    /// The watch's name.
    let name: String
    /// The history the watch's first versions belong to. A reload that changes how records are
    /// identified starts another: cursors come from ``WatchVersion/cursor``, never from this.
    let epoch: Epoch
    /// The watch's series, updated as the feed changes; `nil` in tests that need none.
    let metrics: WatchMetrics?
    /// Called after a publication changed the status (the daemon's `STATUS=` line follows it).
    private let onStatusChange: @Sendable () -> Void
    /// Called, outside the lock, with the current version's cursor when a version 1 client
    /// subscribes at a version not yet noted (or a version without a changeset line is published
    /// while one follows): the daemon records it on disk (``Version1ClientMark``), so the window
    /// of version 1 digests survives a restart.
    private let onVersion1Client: @Sendable (Cursor) -> Void

    private struct State {
        var format: WatchConfiguration.Format
        /// The key fields, as the configuration names them.
        var key: [String]
        /// The watched file's path, for `list`.
        var path: String
        var version: WatchVersion?
        var history: ChangesetHistory
        var status: StatusMessage
        /// Counts status changes, so a subscriber knows whether it has seen the current one.
        var statusGeneration: UInt64 = 0
        var statusLine: ByteBuffer
        /// Whether the watch's versions are saved; `false` while the state cannot be saved.
        var savesState = true
        var subscribers: [ObjectIdentifier: any WatchFeedSubscriber] = [:]
        /// The subscribers that speak protocol version 1: while there is one, each new version's
        /// version 1 digest is computed as it is published and kept beside its changeset.
        var v1Subscribers: Set<ObjectIdentifier> = []
        /// How many more versions get their version 1 digest with no version 1 subscriber: after
        /// the last one leaves (or a restore whose newest changeset carried it), as many as the
        /// history keeps, so that one that comes back resumes as far as the history reaches.
        var v1VersionsLeft = 0
        /// The newest cursor handed to ``onVersion1Client`` (or restored from the mark).
        var v1NotedCursor: Cursor?

        /// Whether the next version gets its version 1 digest.
        var wantsV1Digests: Bool { !self.v1Subscribers.isEmpty || self.v1VersionsLeft > 0 }
        /// Whether the watch's saved state is still being read back: until then no subscription
        /// can be planned (a cursor from before a restart could not resume yet).
        var isRestoring = true
        /// The snapshot being sent of some version with the version 2 digest, while a
        /// subscription sends it.
        weak var snapshot: EncodedSnapshot?
        /// The same with the version 1 digest.
        weak var v1Snapshot: EncodedSnapshot?

        /// The current version's cursor, when a version 1 client follows at it and it was not
        /// noted yet (it is noted now): to hand to ``WatchFeed/onVersion1Client``.
        mutating func noteV1Client() -> Cursor? {
            guard let cursor = self.version?.cursor, cursor != self.v1NotedCursor else { return nil }
            self.v1NotedCursor = cursor
            return cursor
        }
    }

    private let state: Mutex<State>

    /// A feed for a watch that has not been read yet, keeping `historyLength` changesets, of
    /// which memory holds at most `cacheBytes` (but always the newest), the others read back
    /// from `archive`.
    init(
        watch: WatchConfiguration, epoch: Epoch, historyLength: Int, cacheBytes: Int = .max, archive: (any ArchivedChangesets)? = nil,
        metrics: WatchMetrics? = nil, onStatusChange: @escaping @Sendable () -> Void = {},
        onVersion1Client: @escaping @Sendable (Cursor) -> Void = { _ in }
    ) {
        self.name = watch.name
        self.epoch = epoch
        self.metrics = metrics
        self.onStatusChange = onStatusChange
        self.onVersion1Client = onVersion1Client
        let status = StatusMessage(watch: watch.name, state: .loading)
        self.state = Mutex(
            State(
                format: watch.format, key: watch.key, path: watch.path, history: ChangesetHistory(capacity: historyLength, cacheBytes: cacheBytes, epoch: epoch, archive: archive),
                status: status,
                statusLine: ByteBuffer(bytes: ServerMessage.status(status).encoded())))
    }

    // MARK: - Publishing

    /// Makes a tracker's publication live and wakes every subscriber.
    func publish(_ publication: WatchPublication) {
        // The tracker's line itself, shared with the state store, not copied (issue 19).
        let line = publication.changesetLine
        // Computed by the tracker while a version 1 client follows the watch (and carried by
        // the line); one that subscribes meanwhile gets it on demand (``next(after:digestVersion:)``).
        let v1Digest = publication.version?.computedV1Digest
        let status = publication.status.map { ($0, ByteBuffer(bytes: ServerMessage.status($0).encoded())) }
        let (subscribers, isNewVersion, v1Noted) = self.state.withLock { state in
            var isNewVersion = false
            var v1Noted: Cursor?
            if let version = publication.version {
                isNewVersion = state.version.map { $0.seq != version.seq || $0.epoch != version.epoch } ?? true
                if let line {
                    state.history.append(line, seq: version.seq, v1Digest: v1Digest)
                    if isNewVersion, state.v1Subscribers.isEmpty, state.v1VersionsLeft > 0 {
                        state.v1VersionsLeft -= 1
                    }
                } else if let current = state.version, current.epoch != version.epoch {
                    // A new history: no changeset leads to it, so every subscriber's position
                    // finds none and gets a snapshot; cursors of the old one resume no more.
                    precondition(version.seq > current.seq, "a new epoch that does not follow the last version")
                    state.history = state.history.emptied(epoch: version.epoch)
                } else {
                    precondition(state.version.map { $0.seq == version.seq } ?? (version.seq == 0), "a new version without its changeset")
                }
                state.version = version
                // A version no changeset line leads to (the first of an epoch) carries no
                // `digest_v1` to tell a restart that a version 1 client followed: note it.
                if line == nil, isNewVersion, !state.v1Subscribers.isEmpty {
                    v1Noted = state.noteV1Client()
                }
            }
            if let (status, statusLine) = status, state.status.state != .removed {
                state.status = status
                state.statusGeneration += 1
                state.statusLine = statusLine
            }
            if let savesState = publication.savesState {
                state.savesState = savesState
            }
            return (Array(state.subscribers.values), isNewVersion, v1Noted)
        }
        if let v1Noted { self.onVersion1Client(v1Noted) }
        self.record(publication, isNewVersion: isNewVersion)
        if publication.status != nil || publication.savesState != nil {
            self.onStatusChange()
        }
        for subscriber in subscribers {
            subscriber.feedDidChange()
        }
    }

    /// Counts `publication` in the watch's metrics.
    private func record(_ publication: WatchPublication, isNewVersion: Bool) {
        guard let metrics = self.metrics else { return }
        if let version = publication.version, isNewVersion {
            metrics.notePublished(seq: version.seq, rows: version.rowCount, changes: publication.changes)
        }
        if publication.isInvalidRead {
            metrics.invalidVersions.increment()
        }
        if let status = publication.status, status.state != .removed {
            metrics.noteState(status.state)
        }
        if let savesState = publication.savesState {
            metrics.stateSaveFailing.set(to: savesState ? 0 : 1)
        }
    }

    /// Makes `version`, the last one published before the daemon restarted, current, with the
    /// changeset lines that led to it (oldest first; the last one publishes `version`), so clients
    /// resume across the restart. Only before anything is published.
    ///
    /// Version 1 digests go on for `history_length` versions when the newest line carries one,
    /// and for what is left of that window after `version1ClientAt`, the version current when a
    /// version 1 client last subscribed (``Version1ClientMark``): one that followed the watch when
    /// the daemon stopped, subscribed after the newest saved changeset, resumes from its cursor.
    func restore(_ version: WatchVersion, changesets: [[UInt8]], version1ClientAt: Cursor? = nil) {
        let subscribers = self.state.withLock { state in
            precondition(state.version == nil, "restoring over a published version")
            state.history = state.history.emptied(epoch: version.epoch)
            for (offset, line) in changesets.enumerated() {
                state.history.append(
                    FileBytes(line), seq: version.seq - UInt64(changesets.count - 1 - offset),
                    v1Digest: ServerMessage.carriedV1Digest(in: line))
            }
            if let newest = changesets.last, ServerMessage.carriedV1Digest(in: newest) != nil {
                state.v1VersionsLeft = state.history.capacity
            } else if let mark = version1ClientAt, mark.epoch == version.epoch, mark.seq <= version.seq,
                version.seq - mark.seq < UInt64(state.history.capacity)
            {
                state.v1VersionsLeft = state.history.capacity - Int(version.seq - mark.seq)
            }
            state.v1NotedCursor = version1ClientAt
            state.version = version
            return Array(state.subscribers.values)
        }
        self.metrics?.noteVersion(seq: version.seq, rows: version.rowCount)
        // Subscribers waiting for a first version (a watch a reload added) get it now.
        for subscriber in subscribers {
            subscriber.feedDidChange()
        }
    }

    /// The watch's saved state is back (restored, or there was none): subscriptions can be
    /// planned; the subscribers that waited are woken to start theirs.
    func finishRestoring() {
        let subscribers = self.state.withLock { state in
            state.isRestoring = false
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers {
            subscriber.feedDidChange()
        }
    }

    /// Whether the watch's saved state is still being read back (see ``finishRestoring()``).
    var isRestoring: Bool {
        self.state.withLock { $0.isRestoring }
    }

    /// Wakes `subscriber` when the feed changes, before it subscribes: a connection whose
    /// `subscribe` waits for the restore to end.
    func wake(_ subscriber: any WatchFeedSubscriber) {
        let count = self.state.withLock { state in
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            return state.subscribers.count
        }
        self.metrics?.subscribers.set(to: Double(count))
    }

    /// Ends the feed: the watch left the configuration. Subscribers get what they have not read,
    /// then a `removed` status, and their subscriptions end.
    func remove() {
        self.publish(WatchPublication(status: StatusMessage(watch: self.name, state: .removed)))
    }

    /// Applies a reloaded configuration's format, key, path and history length.
    func reconfigure(format: WatchConfiguration.Format, key: [String], path: String, historyLength: Int) {
        self.state.withLock { state in
            state.format = format
            state.key = key
            state.path = path
            state.history.resize(capacity: historyLength)
        }
    }

    // MARK: - Reading

    /// The watch as `list` and `hello` describe it.
    var summary: WatchSummary {
        self.state.withLock { state in
            WatchSummary(
                name: self.name, format: state.format.rawValue, sectioned: state.version?.list.isSectioned ?? false,
                state: state.status.state, cursor: state.version?.cursor,
                rows: state.version?.rowCount, key: state.key, warnings: state.status.warnings, path: state.path,
                since: state.status.since, error: state.status.error)
        }
    }

    /// Adds `subscriber` and decides how its subscription starts from `since`.
    ///
    /// - Returns: The start, and the current version (the snapshot's, or the one resuming ends at).
    func subscribe(
        _ subscriber: any WatchFeedSubscriber, since: Cursor?, digestVersion: DigestVersion = .v2
    ) -> (start: SubscriptionStart, version: WatchVersion?) {
        let (start, version, count, v1Noted) = self.state.withLock { state in
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            var v1Noted: Cursor?
            if digestVersion == .v1 {
                state.v1Subscribers.insert(ObjectIdentifier(subscriber))
                v1Noted = state.noteV1Client()
            } else {
                state.v1Subscribers.remove(ObjectIdentifier(subscriber))
            }
            let start = SubscriptionStart.plan(
                since: since, epoch: state.version?.epoch ?? self.epoch, currentSeq: state.version?.seq, history: state.history,
                digestVersion: digestVersion)
            return (start, state.version, state.subscribers.count, v1Noted)
        }
        if let v1Noted { self.onVersion1Client(v1Noted) }
        self.metrics?.subscribers.set(to: Double(count))
        return (start, version)
    }

    /// Whether a version 1 client follows the watch, or did within the last `history_length`
    /// versions: the tracker then computes each new version's version 1 digest, which its
    /// changeset line carries (`digest_v1`) and is saved with.
    var wantsV1Digests: Bool {
        self.state.withLock { $0.wantsV1Digests }
    }

    /// Removes `subscriber`; it is not woken any more.
    func unsubscribe(_ subscriber: any WatchFeedSubscriber) {
        let count = self.state.withLock { state in
            state.subscribers.removeValue(forKey: ObjectIdentifier(subscriber))
            if state.v1Subscribers.remove(ObjectIdentifier(subscriber)) != nil, state.v1Subscribers.isEmpty {
                state.v1VersionsLeft = state.history.capacity
            }
            return state.subscribers.count
        }
        self.metrics?.subscribers.set(to: Double(count))
    }

    /// What a subscriber should send next, given how far it got.
    enum Next {
        /// The changeset line publishing the `seq` asked for, shared with the watch's history
        /// (and the state store): the subscriber sends it in parts, or a copy of its own.
        case changeset(FileBytes)
        /// The changeset line publishing the `seq` asked for, a copy for this subscriber alone
        /// (read back from disk, or given its version 1 digest): its bytes count against the
        /// client-buffer budget until written.
        case archivedChangeset([UInt8])
        /// The changesets after the subscriber's position are gone from the ring: send a fresh
        /// snapshot of this version.
        case snapshot(WatchVersion)
        /// The changeset line publishing the `seq` asked for goes to a version 1 client with the
        /// version 1 digest of this version, the current one, not computed yet: the subscriber
        /// holds its position until ``computeV1Digest(of:)`` ran (off the event loop), then asks again.
        case awaitingV1Digest(WatchVersion)
        /// The current status, of this generation.
        case status(ByteBuffer, generation: UInt64, removed: Bool)
        /// The subscriber is up to date.
        case upToDate
    }

    /// Where a subscriber is in the feed.
    struct Position: Hashable, Sendable {
        /// The `seq` of the next changeset to send.
        var nextSeq: UInt64
        /// The status generation last sent; `nil` before the first.
        var statusGeneration: UInt64?
    }

    /// The next thing to send from `position`: changesets in order first, then the status if it
    /// changed since the last one sent. Reading both under one lock keeps a status from
    /// overtaking the changeset published with it.
    ///
    /// - Complexity: O(1) for a changeset in memory; a `pread` of its line, outside the lock, for
    ///   one read back from disk.
    func next(after position: Position, digestVersion: DigestVersion = .v2) -> Next {
        guard digestVersion == .v1 else { return self.next(after: position) }
        return self.nextForVersion1(after: position)
    }

    /// ``next(after:digestVersion:)`` for a subscriber that speaks version 2: the lines as kept.
    private func next(after position: Position) -> Next {
        let found = self.state.withLock { state -> (next: Next?, onDisk: (any ArchivedChangesets, Epoch, current: WatchVersion)?) in
            if let current = state.version, position.nextSeq <= current.seq {
                switch state.history.kept(publishing: position.nextSeq) {
                case .inMemory(let line): return (.changeset(line), nil)
                case .onDisk(let archive, let epoch): return (nil, (archive, epoch, current))
                case nil: return (.snapshot(current), nil)
                }
            }
            if position.statusGeneration != state.statusGeneration {
                return (.status(state.statusLine, generation: state.statusGeneration, removed: state.status.state == .removed), nil)
            }
            return (.upToDate, nil)
        }
        if let next = found.next { return next }
        guard let (archive, epoch, current) = found.onDisk else { return .upToDate }
        // Read outside the lock: an older changeset, evicted from memory, read back from the
        // log. Gone meanwhile (the log was trimmed), the subscriber resynchronises.
        guard let line = archive.line(publishing: position.nextSeq, of: epoch) else { return .snapshot(current) }
        return .archivedChangeset(line)
    }

    /// ``next(after:digestVersion:)`` for a subscriber that speaks version 1: each changeset line
    /// copied with its version 1 digest in place of the version 2 one (its own copy, counted
    /// against the client-buffer budget). The digest is the one the line carries (`digest_v1`) or
    /// kept beside it, or the current version's once computed; if no version 1 client needed it
    /// before, the answer is ``Next/awaitingV1Digest(_:)``: it is computed off the event loop
    /// (``computeV1Digest(of:)``, O(*n*), once per version). A version published while no
    /// version 1 client was subscribed has none, and the subscriber resynchronises with a
    /// snapshot, as when history was trimmed.
    private func nextForVersion1(after position: Position) -> Next {
        let next = self.next(after: position)
        let line: FileBytes
        switch next {
        case .changeset(let kept): line = kept
        case .archivedChangeset(let kept): line = FileBytes(kept)
        case .snapshot, .awaitingV1Digest, .status, .upToDate: return next
        }
        let (kept, current) = self.state.withLock { state in
            (state.history.v1Digest(publishing: position.nextSeq), state.version)
        }
        guard let current else { return .upToDate }
        var v1Digest = kept
        if v1Digest == nil, current.seq == position.nextSeq {
            guard let computed = current.computedV1Digest else { return .awaitingV1Digest(current) }
            self.state.withLock { $0.history.noteV1Digest(computed, seq: position.nextSeq) }
            v1Digest = computed
        }
        // Copied from the line in place (a long one is a mapping, let go of once copied).
        let copy = line.withContiguousBytes(in: 0..<line.count) { ServerMessage.version1Line(of: $0, v1Digest: v1Digest) }
        line.releaseMappedPages()
        guard let copy else { return .snapshot(current) }
        return .archivedChangeset(copy)
    }

    /// Computes `version`'s version 1 digest (O(*n*), once per version, shared by every version 1
    /// subscriber) and keeps it beside the changeset publishing it, for those that come later.
    /// Blocks: run it on the server's thread pool, never on an event loop.
    func computeV1Digest(of version: WatchVersion) {
        let digest = version.v1Digest
        self.state.withLock { state in
            guard state.history.epoch == version.epoch else { return }
            state.history.noteV1Digest(digest, seq: version.seq)
        }
    }

    /// A reader of the snapshot of `version` with its `digestVersion` digest, shared with every
    /// subscription sending it: the one being sent if it still holds its first chunk, otherwise a
    /// new one (encoded as subscribers read it); `nil` while the version 1 digest of `version` is not computed
    /// (``computeV1Digest(of:)`` computes it, off the event loop).
    ///
    /// - Parameters:
    ///   - chunkSize: The size at which a new snapshot's chunks are cut.
    ///   - budget: Where a new snapshot's bytes are counted.
    /// - Complexity: O(1).
    func snapshot(of version: WatchVersion, digestVersion: DigestVersion = .v2, chunkSize: Int, budget: (any BufferBudget)?) -> EncodedSnapshotReader? {
        guard let digest = version.digest(digestVersion) else { return nil }
        return self.state.withLock { state in
            let shared = digestVersion == .v1 ? state.v1Snapshot : state.snapshot
            if let shared, shared.version === version, let reader = shared.attachReader() {
                return reader
            }
            let snapshot = EncodedSnapshot(feed: self, version: version, digest: digest, chunkSize: chunkSize, budget: budget)
            if digestVersion == .v1 {
                state.v1Snapshot = snapshot
            } else {
                state.snapshot = snapshot
            }
            // A new snapshot has its first chunk: the reader is always attached.
            return snapshot.attachReader()
        }
    }

    /// The version subscribers are brought to; `nil` before the first.
    var currentVersion: WatchVersion? {
        self.state.withLock { $0.version }
    }

    /// The watch's state, as its status says.
    var watchState: WatchState {
        self.state.withLock { $0.status.state }
    }

    /// Whether the watch's versions are saved: `false` while its state cannot be saved.
    var savesState: Bool {
        self.state.withLock { $0.savesState }
    }

    /// How many changesets are kept for resuming, in memory or on disk.
    var keptChangesets: Int {
        self.state.withLock { state in
            guard let oldest = state.history.oldestSeq, let newest = state.history.newestSeq, newest >= oldest else { return 0 }
            return Int(newest - oldest + 1)
        }
    }

    /// How many connections are subscribed.
    var subscriberCount: Int {
        self.state.withLock { $0.subscribers.count }
    }
}
