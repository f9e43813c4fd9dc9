import ListFormats
import ListSyncProtocol

/// The durable state of one watch, in `<state_directory>/<watch name>/`: the ``Checkpoint`` of
/// its last published version and the ``ChangesetLog`` of the changesets that led to it, so a
/// restarted daemon carries on the watch's history — same epoch, next `seq`, the ring refilled.
///
/// **Durable before visible.** The tracker saves each version (``save(_:changeset:watch:)``)
/// before it hands it to the feed: the changeset is appended to the log and `fsync`ed, then the
/// checkpoint is replaced (written to a temporary file, `fsync`ed, renamed, the directory
/// `fsync`ed). A crash between the two leaves a log one changeset ahead of the checkpoint; that
/// changeset was never sent, so ``restore(for:)`` drops it. Hence a cursor never names two
/// different changesets, whenever the daemon dies.
///
/// **Bounded.** The log holds at most `historyLength` changesets (when it would hold more, it is
/// rewritten with the newest three quarters), and the directory at most two copies of the list
/// (the checkpoint and, while it is replaced, its temporary file).
///
/// A value type used by one tracker at a time, moved to the thread pool and back like the
/// tracker's state machine.
struct WatchStateStore: Sendable {
    /// What ``restore(for:)`` found.
    enum Restoration: Sendable {
        /// The last published version, the settings it was read with, and the changesets that
        /// led to it (oldest first, at most `historyLength`).
        case restored(WatchVersion, watch: WatchConfiguration, changesets: [[UInt8]])
        /// There is no state: the watch is new (or its state was deleted).
        case none
        /// The state belongs to a watch with another path, format, key or section_by.
        case identityChanged(Set<WatchConfiguration.Field>)
        /// The state is damaged; the damaged file was moved aside to `<file>.damaged`.
        case damaged(StateDamage)
    }

    /// The watch's directory.
    let directory: String
    /// Whether anything is saved: `false` only for benchmarks that compare with a daemon that
    /// keeps no state (`LISTSYNCD_BENCHMARK_NO_STATE=1`), which forgets its history on restart.
    let isPersistent: Bool
    /// The environment variable that turns saving off, for benchmarks only.
    static let benchmarkSwitch = "LISTSYNCD_BENCHMARK_NO_STATE"
    /// The most changesets the log keeps.
    var historyLength: Int
    private let crashPoints: StateCrashPoints
    /// The log on disk, when it is known to be good; `nil` makes the next save write a new one.
    private var log: ChangesetLog?
    /// The checkpoint on disk, less the list's bytes.
    private var checkpoint: (cursor: Cursor, watch: WatchConfiguration)?

    /// The state of the watch called `name`, under `stateDirectory`.
    init(stateDirectory: String, name: String, historyLength: Int, crashPoints: StateCrashPoints, isPersistent: Bool = true) {
        self.directory = stateDirectory + "/" + name
        self.isPersistent = isPersistent
        self.historyLength = max(1, historyLength)
        self.crashPoints = crashPoints
    }

    var checkpointPath: String { self.directory + "/checkpoint" }
    var logPath: String { self.directory + "/log" }

    /// Reads the state back for `watch`: the last published version, re-read from the stored
    /// bytes with the stored settings and checked against the stored digest, and its changesets.
    ///
    /// Damaged state is moved aside, never deleted; state of another identity is left to be
    /// replaced. Either way the next save starts afresh.
    ///
    /// - Complexity: O(*n*) in the size of the list and the log (read, parse, digest).
    mutating func restore(for watch: WatchConfiguration) -> Restoration {
        self.log = nil
        guard self.isPersistent else { return .none }
        // A temporary file is an unfinished replacement: what it holds was never published.
        try? StateFile.remove(self.checkpointPath + ".tmp")
        try? StateFile.remove(self.logPath + ".tmp")
        let checkpointFile: [UInt8]?
        let logFile: [UInt8]?
        do throws(StateFileError) {
            checkpointFile = try StateFile.read(self.checkpointPath)
        } catch {
            return self.damaged(StateDamage(path: self.checkpointPath, reason: .unreadable(error)))
        }
        do throws(StateFileError) {
            logFile = try StateFile.read(self.logPath)
        } catch {
            return self.damaged(StateDamage(path: self.logPath, reason: .unreadable(error)))
        }
        guard let checkpointFile else {
            return logFile == nil ? .none : self.damaged(StateDamage(path: self.checkpointPath, reason: .missing))
        }
        let checkpoint: Checkpoint
        do throws(StateDamage.Reason) {
            checkpoint = try Checkpoint(decoding: checkpointFile, name: watch.name)
        } catch {
            return self.damaged(StateDamage(path: self.checkpointPath, reason: error))
        }
        let changed = checkpoint.watch.fields(differingFrom: watch).intersection(WatchConfiguration.Field.persistentIdentities)
        guard changed.isEmpty else { return .identityChanged(changed) }
        guard let logFile else { return self.damaged(StateDamage(path: self.logPath, reason: .missing)) }
        let decoded: (log: ChangesetLog, lines: [ArraySlice<UInt8>])
        do throws(StateDamage.Reason) {
            decoded = try ChangesetLog.decode(logFile, leadingTo: checkpoint.cursor.seq)
            guard decoded.log.epoch == checkpoint.cursor.epoch else {
                throw .inconsistent("the log is of epoch \(decoded.log.epoch), the checkpoint of \(checkpoint.cursor.epoch)")
            }
        } catch {
            return self.damaged(StateDamage(path: self.logPath, reason: error))
        }
        let version: WatchVersion
        do {
            let list = try ListReader(options: checkpoint.watch.readOptions).read(bytes: checkpoint.bytes)
            version = WatchVersion(epoch: checkpoint.cursor.epoch, seq: checkpoint.cursor.seq, list: list)
        } catch {
            return self.damaged(StateDamage(path: self.checkpointPath, reason: .inconsistent("the stored list does not read: \(error)")))
        }
        guard version.digest == checkpoint.digest else {
            return self.damaged(StateDamage(path: self.checkpointPath, reason: .inconsistent("the stored list does not match its digest")))
        }
        if decoded.log.size < logFile.count {
            // Changesets saved but never published (the checkpoint was not replaced): drop them.
            do throws(StateFileError) {
                try StateFile.replace(self.logPath, with: [Array(logFile[..<decoded.log.size])], kind: "log-rewrite", crashPoints: self.crashPoints)
            } catch {
                return self.damaged(StateDamage(path: self.logPath, reason: .unreadable(error)))
            }
        }
        self.log = decoded.log
        self.checkpoint = (checkpoint.cursor, checkpoint.watch)
        return .restored(version, watch: checkpoint.watch, changesets: decoded.lines.suffix(self.historyLength).map(Array.init))
    }

    /// Starts the checkpoint of a version whose file holds `bytes`, writing them to the
    /// checkpoint's temporary file and flushing them to the disk, so that this, the bulk of
    /// saving a large list, overlaps reading and diffing it. ``save(_:changeset:watch:staged:)`` finishes it; ``StagedCheckpoint/abandon()``
    /// drops it when no version is published. `nil` when nothing is saved (benchmarks).
    func stageCheckpoint(of bytes: [UInt8]) throws(StateFileError) -> StagedCheckpoint? {
        guard self.isPersistent else { return nil }
        try StateFile.createDirectory(self.directory)
        let replacement = try StateFile.Replacement(of: self.checkpointPath, writing: Checkpoint.leadingParts(of: bytes))
        try replacement.flush()
        return StagedCheckpoint(byteCount: bytes.count, replacement: replacement)
    }

    /// A checkpoint whose bytes are written, waiting for its header.
    struct StagedCheckpoint: Sendable {
        fileprivate let byteCount: Int
        fileprivate let replacement: StateFile.Replacement

        /// Drops the checkpoint: the version it was for is not published.
        func abandon() {
            self.replacement.abandon()
        }
    }

    /// Makes `version` durable: `changeset`, the line that publishes it, is appended to the log
    /// (a version without one — the first of an epoch — starts a new log), then the checkpoint
    /// is replaced, finishing `staged` when it holds the version's bytes. Returns once both are
    /// on disk.
    ///
    /// After a failure the version is not durable and must not be published; saving it again
    /// later (with the same `seq`) replaces whatever part of it was written.
    mutating func save(_ version: WatchVersion, changeset: [UInt8]?, watch: WatchConfiguration, staged: StagedCheckpoint? = nil) throws(StateFileError) {
        guard self.isPersistent else {
            staged?.abandon()
            return
        }
        var staged = staged
        if let checkpoint = staged, checkpoint.byteCount != version.list.bytes.count {
            checkpoint.abandon()
            staged = nil
        }
        do throws(StateFileError) {
            try StateFile.createDirectory(self.directory)
            try self.extendLog(to: version, changeset: changeset)
        } catch {
            staged?.abandon()
            throw error
        }
        self.checkpoint = nil
        let checkpoint = Checkpoint(version: version, watch: watch)
        if let staged {
            try staged.replacement.finish(writing: [checkpoint.trailer], kind: "checkpoint", crashPoints: self.crashPoints)
        } else {
            try StateFile.replace(self.checkpointPath, with: checkpoint.encoded, kind: "checkpoint", crashPoints: self.crashPoints)
        }
        self.checkpoint = (version.cursor, watch)
        self.crashPoints.reach("published")
    }

    /// Appends `changeset`, which publishes `version`, to the log, or starts a new log.
    /// `self.log` is `nil` while the log on disk is in doubt (a write failed half-way), which
    /// makes the next save replace it.
    private mutating func extendLog(to version: WatchVersion, changeset: [UInt8]?) throws(StateFileError) {
        if let changeset, var log = self.log, log.epoch == version.epoch, log.baseSeq < version.seq {
            let record = ChangesetLog.record(seq: version.seq, line: changeset)
            if log.lastSeq >= version.seq {
                // An earlier attempt appended this seq, then failed: drop what it wrote.
                self.log = nil
                try StateFile.truncate(self.logPath, to: log.truncate(after: version.seq - 1))
                self.log = log
            }
            if log.records.count < self.historyLength {
                self.log = nil
                try StateFile.append(record, to: self.logPath, kind: "log", crashPoints: self.crashPoints)
                log.appended(seq: version.seq, count: record.count)
                self.log = log
            } else if let file = try StateFile.read(self.logPath), file.count == log.size {
                try self.rewriteLog(log.keepingNewest(self.historyLength - 1 - self.historyLength / 4, of: file), appending: record, seq: version.seq)
            } else {
                try self.rewriteLog(ChangesetLog.empty(epoch: version.epoch, baseSeq: version.seq - 1), appending: record, seq: version.seq)
            }
        } else {
            let base = changeset == nil ? version.seq : version.seq - 1
            try self.rewriteLog(
                ChangesetLog.empty(epoch: version.epoch, baseSeq: base), appending: changeset.map { ChangesetLog.record(seq: version.seq, line: $0) },
                seq: version.seq)
        }
    }

    /// Records that the watch now reads `path` (a reload moved it) while `version`, the one saved,
    /// stays live: the file there has the same content. Otherwise the next start would take the
    /// state for another file's. Nothing to do when a version was published since.
    mutating func follow(path: String, version: WatchVersion) throws(StateFileError) {
        guard self.isPersistent, var saved = self.checkpoint, saved.cursor == version.cursor, saved.watch.path != path else { return }
        saved.watch.path = path
        self.checkpoint = nil
        try StateFile.replace(self.checkpointPath, with: Checkpoint(version: version, watch: saved.watch).encoded, kind: "checkpoint", crashPoints: self.crashPoints)
        self.checkpoint = saved
    }

    /// Deletes the watch's state: the watch left the configuration.
    func remove() throws(StateFileError) {
        try StateFile.removeDirectory(self.directory)
    }

    private mutating func rewriteLog(_ start: (log: ChangesetLog, file: [UInt8]), appending record: [UInt8]?, seq: UInt64) throws(StateFileError) {
        var (log, file) = start
        if let record {
            file += record
            log.appended(seq: seq, count: record.count)
        }
        self.log = nil
        try StateFile.replace(self.logPath, with: [file], kind: "log-rewrite", crashPoints: self.crashPoints)
        self.log = log
    }

    /// Moves the file `damage` names aside and forgets the log: the watch starts a new epoch.
    private mutating func damaged(_ damage: StateDamage) -> Restoration {
        self.log = nil
        try? StateFile.moveAside(damage.path)
        return .damaged(damage)
    }
}
