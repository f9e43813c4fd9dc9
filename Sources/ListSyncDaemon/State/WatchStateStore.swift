import ListFormats
import ListSyncProtocol

/// The durable state of one watch, in `<state_directory>/<watch name>/`: two ``Checkpoint``
/// slots holding its last two saved versions, and the ``ChangesetLog`` of the changesets that led
/// to them, so a restarted daemon carries on the watch's history — same epoch, next `seq`, the
/// ring refilled.
///
/// **Durable before visible, with one flush.** The tracker saves each version
/// (``save(_:changeset:watch:staged:)``) before it hands it to the feed: the version's bytes, its
/// cursor, digest and changeset are written over the slot that holds the older of the last two
/// versions, in place, and flushed by one `fdatasync` — no rename, no directory `fsync` (but the
/// first time a slot file is created). The list's bytes are written while the version is
/// diffed (``stageCheckpoint(of:)``). After publishing, ``settleLog()`` appends the changeset to
/// the log and `fsync`s it; the next version's slot is written only once that is done, so the
/// log always holds every changeset but the newest slot's own.
///
/// A crash mid-write leaves the slot being written torn (its checksums say so): the other slot
/// holds the version before, which is the last one published, and the log leads to it. A crash
/// after the flush leaves a whole new slot, restored whether or not its version was sent. Hence
/// a cursor never names two different changesets, whenever the daemon dies.
///
/// **Bounded.** The log holds at most `historyLength` changesets and `historyMaxBytes` of them
/// (when it would hold more, it is rewritten with the newest that fill three quarters of each;
/// the newest changeset is kept however large), and the directory two copies of the list (the
/// slots).
///
/// A value type used by one tracker at a time, moved to the thread pool and back like the
/// tracker's state machine.
struct WatchStateStore: Sendable {
    /// What ``restore(for:)`` found.
    enum Restoration: Sendable {
        /// The last published version, the settings it was read with, and the changesets that
        /// led to it (oldest first, at most `historyLength` and, but for the newest,
        /// `restoredBytes`; older ones are read from the archive).
        case restored(WatchVersion, watch: WatchConfiguration, changesets: [[UInt8]])
        /// There is no state: the watch is new (or its state was deleted).
        case none
        /// The state belongs to a watch with another path, format, key or section_by.
        case identityChanged(Set<WatchConfiguration.Field>)
        /// The state is damaged; the damaged file was moved aside to `<file>.damaged` (or, when
        /// that failed, left in place: the file says which).
        case damaged(DamagedStateFile)
    }

    /// The watch's name, and its directory.
    let name: String
    let directory: String
    /// Whether anything is saved: `false` only for benchmarks that compare with a daemon that
    /// keeps no state (`LISTSYNCD_BENCHMARK_NO_STATE=1`), which forgets its history on restart.
    let isPersistent: Bool
    /// The environment variable that turns saving off, for benchmarks only.
    static let benchmarkSwitch = "LISTSYNCD_BENCHMARK_NO_STATE"
    /// The most changesets the log keeps.
    var historyLength: Int
    /// The most bytes the log's changesets take (`history_max_mib`); the newest one is kept
    /// even when it alone takes more.
    var historyMaxBytes: Int
    /// The log's changesets as the watch's feed reads them back for clients that resume from a
    /// cursor older than what memory holds; kept up to date with the log.
    let archive = ChangesetArchive()
    /// At which version a protocol version 1 client last subscribed (``Version1ClientMark``).
    let version1Clients: Version1ClientMark
    /// The most bytes of the newest changesets ``restore(for:)`` returns (the newest always):
    /// the feed keeps no more in memory, and reads older ones from ``archive``.
    var restoredBytes = Int.max
    private let crashPoints: StateCrashPoints
    /// The log on disk, when it is known to be good; `nil` makes the next ``settleLog()`` write
    /// a new one.
    private var log: ChangesetLog?
    /// The slot holding the newest whole version; the next save overwrites the other one.
    private var newestSlot: Int?
    /// The checkpoint of the last saved version, which the log must lead to before another slot
    /// is written; `nil` when nothing was saved in this history.
    private var live: Checkpoint?
    /// The generation of the next slot written.
    private var generation: UInt64 = 1
    /// Whether each slot file is known to be in the directory for good (its entry `fsync`ed).
    private var durableEntries = [false, false]
    /// See ``takeDroppedHistory()``.
    private var droppedHistory: (seq: UInt64, error: StateFileError)?

    /// The state of the watch called `name`, under `stateDirectory`.
    init(
        stateDirectory: String, name: String, historyLength: Int, historyMaxBytes: Int = DaemonConfiguration.Defaults.historyMaxMiB << 20,
        crashPoints: StateCrashPoints, isPersistent: Bool = true
    ) {
        self.name = name
        self.directory = stateDirectory + "/" + name
        self.isPersistent = isPersistent
        self.historyLength = max(1, historyLength)
        self.historyMaxBytes = max(1, historyMaxBytes)
        self.crashPoints = crashPoints
        self.version1Clients = Version1ClientMark(directory: self.directory, crashPoints: crashPoints)
    }

    /// The file of checkpoint slot `slot` (0 or 1).
    func slotPath(_ slot: Int) -> String { self.directory + "/checkpoint.\(slot)" }
    var logPath: String { self.directory + "/log" }
    /// The slot the next save writes.
    private var targetSlot: Int { self.newestSlot.map { 1 - $0 } ?? 0 }

    /// Reads the state back for `watch`: the last published version, re-read from the newest
    /// whole slot's bytes with the stored settings and checked against the stored digest, and
    /// its changesets.
    ///
    /// A slot that does not read whole (torn by a crash mid-write, or damaged) is moved aside and
    /// reported in `setAside`, with whether the move worked; the other slot serves. A log
    /// without any slot that reads is damage of the log. Damaged state is moved aside, never
    /// deleted; state of another identity is left to be replaced. Either way the next save
    /// starts afresh. State left by the builds before the slots is converted into a slot first
    /// (``convertLegacyCheckpoint()``), so an upgrade keeps the history.
    ///
    /// - Complexity: O(*n*) in the size of the list and the log (read, parse, digest).
    mutating func restore(for watch: WatchConfiguration) -> (restoration: Restoration, setAside: [DamagedStateFile]) {
        self.log = nil
        self.archive.replace(with: nil, at: self.logPath)
        self.live = nil
        self.newestSlot = nil
        self.generation = 1
        self.durableEntries = [false, false]
        guard self.isPersistent else { return (.none, []) }
        // A temporary file is an unfinished replacement: what it holds was never published.
        try? StateFile.remove(self.logPath + ".tmp")
        var unusable: [StateDamage] = []
        var headers: [(slot: Int, checkpoint: Checkpoint)] = []
        for slot in 0..<2 {
            do throws(StateDamage) {
                guard let checkpoint = try self.readHeader(of: slot) else { continue }
                self.generation = max(self.generation, checkpoint.generation + 1)
                headers.append((slot, checkpoint))
            } catch {
                unusable.append(error)
            }
        }
        var newest: (slot: Int, checkpoint: Checkpoint, bytes: [UInt8])?
        for (slot, checkpoint) in headers.sorted(by: { $0.checkpoint.generation > $1.checkpoint.generation }) where newest == nil {
            do throws(StateDamage) {
                newest = (slot, checkpoint, try self.readBytes(of: slot, described: checkpoint))
            } catch {
                unusable.append(error)
            }
        }
        let setAside = unusable.map(DamagedStateFile.setAside)
        for slot in 0..<2 where headers.contains(where: { $0.slot == slot }) && !unusable.contains(where: { $0.path == self.slotPath(slot) }) {
            self.durableEntries[slot] = true
        }
        // Entries found in the directory may not be durable yet (the daemon was killed before
        // it synced them): make them so before anything is served from them.
        if !headers.isEmpty { try? StateFile.syncDirectory(of: self.logPath) }
        if newest == nil {
            do throws(StateDamage) {
                newest = try self.convertLegacyCheckpoint()
            } catch {
                return (self.damaged(error), setAside)
            }
        } else {
            // Left by a conversion cut short after its slot was written.
            try? StateFile.remove(self.legacyCheckpointPath)
        }
        self.newestSlot = newest?.slot
        let logFile: [UInt8]?
        do throws(StateFileError) {
            logFile = try StateFile.read(self.logPath)
        } catch {
            return (self.damaged(StateDamage(path: self.logPath, reason: .unreadable(error))), setAside)
        }
        guard let newest else {
            if logFile == nil { return (.none, setAside) }
            let found = setAside.isEmpty ? "there is no checkpoint" : "no checkpoint reads"
            return (self.damaged(StateDamage(path: self.logPath, reason: .inconsistent("\(found), so the log leads to no version"))), setAside)
        }
        let (slot, checkpoint, bytes) = newest
        let changed = checkpoint.watch.fields(differingFrom: watch).intersection(WatchConfiguration.Field.persistentIdentities)
        guard changed.isEmpty else { return (.identityChanged(changed), setAside) }
        // Slices of the log file read: only the lines kept in memory are copied, at the end.
        var changesets: [ArraySlice<UInt8>] = []
        do throws(StateDamage.Reason) {
            if let logFile, let decoded = try ChangesetLog.decode(logFile, epoch: checkpoint.cursor.epoch, leadingTo: checkpoint.cursor.seq) {
                guard checkpoint.changeset != nil || decoded.log.lastSeq == checkpoint.cursor.seq else {
                    throw .inconsistent("the log ends at version \(decoded.log.lastSeq), before the first of its epoch, \(checkpoint.cursor.seq)")
                }
                if decoded.log.size < logFile.count {
                    // A changeset whose append was cut short: its slot still carries it.
                    do throws(StateFileError) {
                        try StateFile.truncate(self.logPath, to: decoded.log.size)
                    } catch {
                        throw .unreadable(error)
                    }
                }
                self.log = decoded.log
                self.archive.replace(with: decoded.log, at: self.logPath)
                changesets = decoded.lines
            } else if checkpoint.changeset != nil {
                // Only the first version of an epoch needs no log: its log is written after it.
                throw logFile == nil ? .missing : .inconsistent("the log is of another epoch than the checkpoint's")
            }
        } catch {
            return (self.damaged(StateDamage(path: self.logPath, reason: error)), setAside)
        }
        let version: WatchVersion
        do throws(StateDamage.Reason) {
            version = try Self.version(at: checkpoint.cursor, digest: checkpoint.digest, of: bytes, readWith: checkpoint.watch)
        } catch {
            return (self.damaged(StateDamage(path: self.slotPath(slot), reason: error)), setAside)
        }
        if let changeset = checkpoint.changeset, self.log?.lastSeq != checkpoint.cursor.seq {
            changesets.append(changeset[...])
        }
        self.live = checkpoint
        // Bring the log up to the restored version now; if that fails, the next save tries again.
        try? self.settleLog()
        return (.restored(version, watch: checkpoint.watch, changesets: self.keptInMemory(changesets)), setAside)
    }

    /// Copies of the newest of `lines` (oldest first) that memory keeps: at most
    /// ``historyLength``, of at most ``restoredBytes`` together, but always the newest. Only
    /// those are copied, so a restore holds the log once, not twice.
    ///
    /// - Complexity: O(*k*) in the lines kept, plus their bytes.
    func keptInMemory(_ lines: [ArraySlice<UInt8>]) -> [[UInt8]] {
        var kept = 0
        var keptBytes = 0
        for line in lines.suffix(self.historyLength).reversed() {
            guard kept == 0 || keptBytes + line.count <= self.restoredBytes else { break }
            kept += 1
            keptBytes += line.count
        }
        return lines.suffix(kept).map(Array.init)
    }

    /// The version `bytes` make, read with `watch`'s settings, checked against `digest` (version 2,
    /// or version 1 for a checkpoint saved by a build before protocol version 2).
    private static func version(at cursor: Cursor, digest: ListDigest, of bytes: [UInt8], readWith watch: WatchConfiguration) throws(StateDamage.Reason) -> WatchVersion {
        let version: WatchVersion
        do {
            version = WatchVersion(epoch: cursor.epoch, seq: cursor.seq, list: try ListReader(options: watch.readOptions).read(bytes: bytes))
        } catch {
            throw .inconsistent("the stored list does not read: \(error)")
        }
        // Checkpoints hold the version 2 digest; those saved before protocol version 2 the version 1 one.
        guard version.digest == digest || version.v1Digest == digest else { throw .inconsistent("the stored list does not match its digest") }
        return version
    }

    /// The checkpoint of the builds before the slots (see ``LegacyCheckpoint``).
    var legacyCheckpointPath: String { self.directory + "/" + LegacyCheckpoint.fileName }

    /// Converts the state a build before the slots left, when no slot reads whole: its version is
    /// checked against its digest as those builds did, the log cut back to lead exactly to it
    /// (a crash could leave it one changeset ahead, a changeset never sent), the version written
    /// as a slot carrying the log's last changeset (none for the first version of an epoch) and
    /// flushed, and only then the old file removed. A crash on the way leaves either the old
    /// state or the new, both readable. `nil` when there is no such state.
    ///
    /// - Complexity: O(*n*); the caller reads the slot back as any other (once, at the upgrade).
    private mutating func convertLegacyCheckpoint() throws(StateDamage) -> (slot: Int, checkpoint: Checkpoint, bytes: [UInt8])? {
        let path = self.legacyCheckpointPath
        try? StateFile.remove(path + ".tmp")
        let legacy: LegacyCheckpoint
        do throws(StateDamage.Reason) {
            guard let file = try Self.read(path) else { return nil }
            legacy = try LegacyCheckpoint(decoding: file, name: self.name)
        } catch {
            throw StateDamage(path: path, reason: error)
        }
        let version: WatchVersion
        do throws(StateDamage.Reason) {
            version = try Self.version(at: legacy.cursor, digest: legacy.digest, of: legacy.bytes, readWith: legacy.watch)
        } catch {
            throw StateDamage(path: path, reason: error)
        }
        let seq = legacy.cursor.seq
        let changeset: [UInt8]?
        do throws(StateDamage.Reason) {
            guard let file = try Self.read(self.logPath) else { throw .missing }
            guard var (log, lines) = try ChangesetLog.decode(file, epoch: legacy.cursor.epoch, leadingTo: seq + 1), log.baseSeq <= seq, log.lastSeq >= seq
            else { throw .inconsistent("the log does not lead to the checkpoint's version \(seq) of epoch \(legacy.cursor.epoch)") }
            if log.lastSeq > seq { lines.removeLast() }
            let size = log.truncate(after: seq)
            if size < file.count {
                do throws(StateFileError) {
                    try StateFile.truncate(self.logPath, to: size)
                } catch {
                    throw .unreadable(error)
                }
            }
            changeset = log.records.isEmpty ? nil : lines.last.map(Array.init)
        } catch {
            throw StateDamage(path: self.logPath, reason: error)
        }
        let slot = self.targetSlot
        let checkpoint: Checkpoint
        do throws(StateFileError) {
            checkpoint = try self.writeSlot(version, changeset: changeset, watch: legacy.watch, staged: nil)
        } catch {
            throw StateDamage(path: self.slotPath(slot), reason: .unreadable(error))
        }
        try? StateFile.remove(path)
        return (slot, checkpoint, legacy.bytes)
    }

    /// The header of slot `slot`, `nil` when there is no slot file.
    private func readHeader(of slot: Int) throws(StateDamage) -> Checkpoint? {
        let path = self.slotPath(slot)
        do throws(StateDamage.Reason) {
            guard let prefix = try Self.read(path, count: Checkpoint.bytesOffset) else { return nil }
            let frame = try Checkpoint.bytesFrame(from: prefix)
            let end = Checkpoint.bytesOffset + frame.count
            return try Checkpoint(decoding: try Self.read(path, from: end) ?? [], at: end, bytesFrame: frame, name: self.name)
        } catch {
            throw StateDamage(path: path, reason: error)
        }
    }

    /// The list's bytes in slot `slot`, checked against its header.
    private func readBytes(of slot: Int, described checkpoint: Checkpoint) throws(StateDamage) -> [UInt8] {
        let path = self.slotPath(slot)
        do throws(StateDamage.Reason) {
            guard let bytes = try Self.read(path, from: Checkpoint.bytesOffset, count: checkpoint.byteCount) else { throw .missing }
            try checkpoint.verify(bytes[...])
            return bytes
        } catch {
            throw StateDamage(path: path, reason: error)
        }
    }

    private static func read(_ path: String, from offset: Int = 0, count: Int = .max) throws(StateDamage.Reason) -> [UInt8]? {
        do throws(StateFileError) {
            return try StateFile.read(path, from: offset, count: count)
        } catch {
            throw .unreadable(error)
        }
    }

    /// Starts saving a version whose file holds `bytes`, writing them over the slot the next
    /// save writes and asking the kernel to write them out, so that this, the bulk of saving a
    /// large list, overlaps reading and diffing it. ``save(_:changeset:watch:staged:)`` finishes
    /// it. `nil` when nothing is saved (benchmarks), or the log does not lead to the last saved
    /// version yet (the slot must not be touched before it does).
    func stageCheckpoint(of bytes: [UInt8]) throws(StateFileError) -> StagedCheckpoint? {
        guard self.isPersistent, self.logIsSettled else { return nil }
        try StateFile.createDirectory(self.directory)
        let (parts, checksum) = Checkpoint.leadingParts(of: bytes)
        let overwrite = try StateFile.Overwrite(of: self.slotPath(self.targetSlot), writing: parts)
        return StagedCheckpoint(slot: self.targetSlot, byteCount: bytes.count, checksum: checksum, overwrite: overwrite)
    }

    /// A checkpoint whose bytes are written, waiting for its header.
    struct StagedCheckpoint: Sendable {
        fileprivate let slot: Int
        fileprivate let byteCount: Int
        fileprivate let checksum: UInt64
        fileprivate let overwrite: StateFile.Overwrite

        /// Drops the checkpoint: the version it was for is not published. The slot it was
        /// written over is left torn, which its reader detects; the next save writes it again.
        func abandon() {
            self.overwrite.abandon()
        }
    }

    /// Makes `version` durable: its slot (see ``Checkpoint``) is written over the older one,
    /// finishing `staged` when it holds the version's bytes, with `changeset`, the line that
    /// publishes it (`nil` for the first version of an epoch), and flushed. Returns once it is on
    /// disk. Call ``settleLog()`` once the version is published.
    ///
    /// After a failure the version is not durable and must not be published; saving it again
    /// later (with the same `seq`) writes the same slot again.
    mutating func save(_ version: WatchVersion, changeset: [UInt8]?, watch: WatchConfiguration, staged: StagedCheckpoint? = nil) throws(StateFileError) {
        guard self.isPersistent else {
            staged?.abandon()
            return
        }
        var staged = staged
        if let checkpoint = staged, checkpoint.slot != self.targetSlot || checkpoint.byteCount != version.list.bytes.count {
            checkpoint.abandon()
            staged = nil
        }
        do throws(StateFileError) {
            try self.settleLog()
        } catch {
            staged?.abandon()
            throw error
        }
        try self.writeSlot(version, changeset: changeset, watch: watch, staged: staged)
        self.crashPoints.reach("published")
    }

    /// Writes the slot of `version` over the older slot and flushes it; returns its header.
    @discardableResult
    private mutating func writeSlot(_ version: WatchVersion, changeset: [UInt8]?, watch: WatchConfiguration, staged: StagedCheckpoint?) throws(StateFileError) -> Checkpoint {
        let slot = self.targetSlot
        let overwrite: StateFile.Overwrite
        let checksum: UInt64
        if let staged {
            (overwrite, checksum) = (staged.overwrite, staged.checksum)
        } else {
            try StateFile.createDirectory(self.directory)
            let leading = Checkpoint.leadingParts(of: version.list.bytes)
            (overwrite, checksum) = (try StateFile.Overwrite(of: self.slotPath(slot), writing: leading.parts), leading.checksum)
        }
        let checkpoint = Checkpoint(version: version, changeset: changeset, watch: watch, generation: self.generation, bytesChecksum: checksum)
        try overwrite.finish(writing: [checkpoint.trailer], newEntry: !self.durableEntries[slot], kind: "checkpoint", crashPoints: self.crashPoints)
        self.durableEntries[slot] = true
        self.generation += 1
        self.newestSlot = slot
        self.live = checkpoint
        return checkpoint
    }

    /// Whether the log leads to the last saved version.
    private var logIsSettled: Bool {
        guard let live = self.live else { return true }
        return self.log.map { $0.epoch == live.cursor.epoch && $0.lastSeq == live.cursor.seq } ?? false
    }

    /// Makes the log lead to the last saved version: appends its changeset and `fsync`s, or
    /// starts a new log for a new epoch (or when the log on disk is in doubt). The tracker calls
    /// it once the version is published, off the path to subscribers; ``save(_:changeset:watch:staged:)``
    /// calls it first in case it failed.
    ///
    /// When the disk has no room for the changeset, the log starts afresh at the saved version
    /// (which carries the changeset in its slot), so the next version can still be saved once
    /// the disk has room for it: the epoch and the history in memory are kept, but the history
    /// on disk now starts at that version (``takeDroppedHistory()`` says so, once).
    mutating func settleLog() throws(StateFileError) {
        guard self.isPersistent, !self.logIsSettled, let live = self.live else { return }
        do throws(StateFileError) {
            try self.extendLog(to: live)
        } catch where error.isOutOfSpace {
            let seq = live.cursor.seq
            let (empty, header) = ChangesetLog.empty(epoch: live.cursor.epoch, baseSeq: seq)
            try self.rewriteLog(empty, header: header, appending: nil, seq: seq)
            self.droppedHistory = (seq, error)
        }
    }

    /// The version at which the log last started afresh for want of space, and the error that
    /// made it; `nil` once taken (so it is reported once).
    mutating func takeDroppedHistory() -> (seq: UInt64, error: StateFileError)? {
        defer { self.droppedHistory = nil }
        return self.droppedHistory
    }

    /// Appends the changeset of `live` to the log, or rewrites the log to make room or for a new epoch.
    private mutating func extendLog(to live: Checkpoint) throws(StateFileError) {
        let seq = live.cursor.seq
        let record = live.changeset.map { ChangesetLog.record(seq: seq, line: $0) }
        if let record, var log = self.log, log.epoch == live.cursor.epoch, log.lastSeq + 1 == seq {
            if log.records.count < self.historyLength, log.recordBytes + record.count <= self.historyMaxBytes {
                // `nil` while the log on disk is in doubt (a write failed half-way): the next
                // settle replaces it.
                self.log = nil
                try StateFile.append(record, to: self.logPath, kind: "log", crashPoints: self.crashPoints)
                log.appended(seq: seq, count: record.count)
                self.log = log
                self.archive.update(log)
                return
            }
            // Over a bound: keep the newest changesets that fill three quarters of each, so the
            // log is rewritten once in a while, not at every append. The new changeset is kept
            // however large.
            let kept = log.newestCount(
                atMost: self.historyLength - 1 - self.historyLength / 4, fittingIn: self.historyMaxBytes - self.historyMaxBytes / 4 - record.count)
            if try StateFile.size(of: self.logPath) == log.size {
                let (kept, header) = log.keepingNewest(kept)
                try self.rewriteLog(kept, header: header, copying: log.start(ofNewest: kept.records.count)..<log.size, appending: record, seq: seq)
                return
            }
        }
        let (empty, header) = ChangesetLog.empty(epoch: live.cursor.epoch, baseSeq: record == nil ? seq : seq - 1)
        try self.rewriteLog(empty, header: header, appending: record, seq: seq)
    }

    /// Records that the watch now reads `path` (a reload moved it) while `version`, the one saved,
    /// stays live: the file there has the same content. Otherwise the next start would take the
    /// state for another file's. Nothing to do when a version was published since.
    mutating func follow(path: String, version: WatchVersion) throws(StateFileError) {
        guard self.isPersistent, let live = self.live, live.cursor == version.cursor, live.watch.path != path else { return }
        var watch = live.watch
        watch.path = path
        try self.settleLog()
        try self.writeSlot(version, changeset: live.changeset, watch: watch, staged: nil)
    }

    /// Deletes the watch's state: the watch left the configuration. The archive lets go of the
    /// log's file, so its space is freed (once no read of it is under way).
    func remove() throws(StateFileError) {
        self.archive.releaseFile()
        try StateFile.removeDirectory(self.directory)
    }

    /// Replaces the log with `log`: its file is `header`, the bytes `kept` of the current log
    /// file (copied file to file), and `record` (of `seq`) after them.
    private mutating func rewriteLog(
        _ log: ChangesetLog, header: [UInt8], copying kept: Range<Int> = 0..<0, appending record: [UInt8]?, seq: UInt64
    ) throws(StateFileError) {
        var log = log
        if let record {
            log.appended(seq: seq, count: record.count)
        }
        self.log = nil
        try StateFile.replace(
            self.logPath, with: [header], copying: kept, then: record.map { [$0] } ?? [], kind: "log-rewrite", crashPoints: self.crashPoints)
        self.log = log
        self.archive.replace(with: log, at: self.logPath)
    }

    /// Moves the file `damage` names aside and forgets the log: the watch starts a new epoch.
    private mutating func damaged(_ damage: StateDamage) -> Restoration {
        self.log = nil
        self.archive.replace(with: nil, at: self.logPath)
        self.live = nil
        for slot in 0..<2 where self.slotPath(slot) == damage.path {
            self.durableEntries[slot] = false
        }
        return .damaged(DamagedStateFile.setAside(damage))
    }
}
