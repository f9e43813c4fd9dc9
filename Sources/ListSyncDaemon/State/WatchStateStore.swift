import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListFormats
import ListSyncProtocol

/// The durable state of one watch, in `<state_directory>/<watch name>/`: two ``Checkpoint``
/// slots holding two versions whole, the ``DeltaJournal`` of how each version since differs from
/// the one before, and the ``ChangesetLog`` of the changesets that led to them, so a restarted
/// daemon carries on the watch's history — same epoch, next `seq`, the ring refilled.
///
/// **Durable before visible, with one flush of what changed.** The tracker saves each version
/// (``save(_:changeset:watch:staged:)``) before it hands it to the feed: a record of how its
/// bytes differ from the version before (``ByteDelta``), with its cursor, digest, changeset and
/// settings, is appended to the journal and `fdatasync`ed — a one-row edit writes about a row, not
/// the file, and over zeros the journal file already holds (``ZeroFilledAppendRegion``), so the
/// flush changes neither its size nor its blocks and the file system need not commit its own
/// journal (a commit that would wait for the watched file's data, just renamed). Only the first version of an epoch (or one after a failed append) is written whole,
/// over the slot that holds the older version, in place, flushed by one `fdatasync`; its bytes
/// are written while it is diffed (``stageCheckpoint(of:)``). After publishing, ``settleLog(writingCheckpoint:)``
/// appends the changeset to the log (over its zeros too) and `fdatasync`s it; the next version is saved only once that is
/// done, so the log always holds every changeset but the newest version's own.
///
/// **A full checkpoint now and then, after publishing.** ``settleLog(writingCheckpoint:)`` then writes the live
/// version whole over the older slot when the journal's records since the newest slot take more
/// than a quarter of the list's bytes, or number ``DeltaJournal/mostRecords``, or when only one
/// slot holds a version the journal leads on from. Before the older slot is overwritten the
/// journal is rebased on the newer one (replaced atomically), so it always starts at or before
/// both slots' versions: either slot that reads whole, with the journal's records after its
/// version, rebuilds the newest version (``DeltaReplay``), checked against its digest.
///
/// **Published before the flush, when the operator asks** (`sync_before_publish = false`,
/// ``publishesBeforeSync``): the record or slot is written whole before the version is
/// published, and flushed right after (``syncPublished()``), before the next version is saved.
/// A killed daemon loses nothing (the kernel keeps what was written, and the restart reads it
/// back, flushing it first); only a machine that stops can lose a published version. The
/// ``PublishedBeforeSyncMark`` says so: written before the first such version, removed at a
/// clean stop (``stopCleanly()``); found at a restore under another boot (or after a failed
/// flush), the state is discarded and the watch starts a new epoch (``Restoration/distrusted(reason:)``).
///
/// A crash mid-append leaves a torn last record (its checksum says so): dropped, it was never
/// published. A crash mid-checkpoint leaves the slot being written torn: the other slot and the
/// journal serve. A record or slot written whole is restored whether or not its version was
/// sent. Hence a cursor never names two different changesets, whenever the daemon dies.
///
/// **Bounded.** The log holds at most `historyLength` changesets and `historyMaxBytes` of them
/// (when it would hold more, it is rewritten with the newest that fill three quarters of each;
/// the newest changeset is kept however large), the directory two copies of the list (the
/// slots) and a journal of about half the list's bytes (records since the older slot) — never
/// more than the list's bytes (at least 64 KiB; its file too, with its zeros) nor ``DeltaJournal/mostRecordsKept`` records,
/// even when full checkpoints keep failing: a version whose record would go past that is
/// written whole to a slot instead, and is not saved (nor published) when that fails too.
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
        /// The state was written with versions published before they were flushed, and the
        /// machine stopped since (or a flush failed): `reason` says which. It was discarded
        /// (`discardFailure`: what could not be removed), and a new epoch starts.
        case distrusted(reason: String, discardFailure: StateFileError?)
    }

    /// The watch's name, and its directory.
    let name: String
    let directory: String
    /// Whether anything is saved: `false` only for benchmarks that compare with a daemon that
    /// keeps no state (`LISTSYNCD_BENCHMARK_NO_STATE=1`), which forgets its history on restart.
    let isPersistent: Bool
    /// The environment variable that turns saving off, for benchmarks only.
    static let benchmarkSwitch = "LISTSYNCD_BENCHMARK_NO_STATE"
    /// The environment variable that, set to `0`, keeps saved versions in memory rather than as
    /// mappings of the state files (``mapsSavedBytes``, issue 19): for benchmarks that compare.
    static let mappingSwitch = "LISTSYNCD_MAP_SAVED_BYTES"
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
    /// Whether a version is published once written, and flushed after (`sync_before_publish =
    /// false`, and the boot id could be read); `false`: flushed before it is published.
    let publishesBeforeSync: Bool
    /// The boot id of the running system (``PublishedBeforeSyncMark/currentBootID(testOverride:)``).
    let bootID: String?
    /// The mark on disk, as this store knows it: written before the first version published
    /// unflushed, or found at the restore (same boot).
    private var mark: PublishedBeforeSyncMark?
    /// The flush the last saved version still needs (``syncPublished()``).
    private var pendingSync: PendingSync?
    /// The log on disk, when it is known to be good; `nil` makes the next ``settleLog(writingCheckpoint:)`` write
    /// a new one.
    private var log: ChangesetLog?
    /// The journal on disk, when it is known to be good and leads to the last saved version;
    /// `nil` makes the next save write a slot whole, and the next ``settleLog(writingCheckpoint:)`` start a new one.
    private var journal: DeltaJournal?
    /// The slot holding the newest whole version; the next full checkpoint overwrites the other one.
    private var newestSlot: Int?
    /// The version each slot holds whole, as far as this store knows.
    private var slotCursors: [Cursor?] = [nil, nil]
    /// The last saved version, which the log must lead to before another version is saved;
    /// `nil` when nothing was saved in this history.
    private var live: SavedVersion?
    /// Its bytes (shared with the version the feed holds, not a copy, in the pieces it holds
    /// them in): what the next version's ``ByteDelta`` is computed against, and what a full
    /// checkpoint writes.
    private var liveBytes: FileBytes?
    /// Whether the live version's bytes are mapped from the state files once saved
    /// (``mappedLiveBytes``, see `WatchStateStore+MappedBytes.swift`); `false`: nothing is mapped.
    var mapsSavedBytes = false
    /// The live version's bytes as read-only mappings of the slot or journal records that hold
    /// them, when ``mapsSavedBytes`` and they could be mapped; `nil` otherwise.
    var mappedLiveBytes: FileBytes?
    /// The file a saved version's records are mapped from (issue 19); `nil`: they stay in
    /// memory (no state saved, or `LISTSYNCD_MAP_SAVED_RECORDS=0`).
    var savedRecords: SavedRecordsFile?
    /// The reader that read the version a restore gave back, which follows its bytes (issue 19):
    /// handed to the tracker (``takeRestoredReader()``), so that the first version read after a
    /// restart re-parses only what changed and shares the restored version's unchanged bytes and
    /// records, as every later one does. Not kept here once taken.
    private var restoredReader: IncrementalListReader?
    /// ``mappedLiveBytes`` when `cursor` is the live version's.
    func mappedLiveBytes(of cursor: Cursor) -> FileBytes? {
        self.live?.cursor == cursor ? self.mappedLiveBytes : nil
    }
    /// Whether each slot's file may be mapped (by ``mappedLiveBytes`` or a holder of its bytes):
    /// it is then written again as a new file (``unlinkMappedSlot(_:)``), never in place.
    var mappedSlots = [false, false]
    /// The generation of the next slot written.
    private var generation: UInt64 = 1
    /// Whether each slot file is known to be in the directory for good (its entry `fsync`ed).
    private var durableEntries = [false, false]
    /// See ``takeDroppedHistory()``.
    private var droppedHistory: (seq: UInt64, error: StateFileError)?
    /// When the last ``save(_:changeset:watch:staged:)`` began appending its record to the
    /// journal (its write and `fdatasync`); `nil` when it appended none. For the tracker's
    /// ``VersionTimeline``.
    private(set) var lastJournalAppendStarted: ContinuousClock.Instant?

    /// The state of the watch called `name`, under `stateDirectory`.
    init(
        stateDirectory: String, name: String, historyLength: Int, historyMaxBytes: Int = DaemonConfiguration.Defaults.historyMaxMiB << 20,
        crashPoints: StateCrashPoints, isPersistent: Bool = true, publishBeforeSync: Bool = false, bootID: String? = nil
    ) {
        self.publishesBeforeSync = publishBeforeSync && isPersistent && bootID != nil
        self.bootID = bootID
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
    var journalPath: String { self.directory + "/" + DeltaJournal.fileName }
    var markPath: String { self.directory + "/" + PublishedBeforeSyncMark.fileName }
    /// The slot the next save writes.
    var targetSlot: Int { self.newestSlot.map { 1 - $0 } ?? 0 }

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
        self.liveBytes = nil
        self.mappedLiveBytes = nil
        self.restoredReader = nil
        self.journal = nil
        self.newestSlot = nil
        self.slotCursors = [nil, nil]
        self.generation = 1
        self.durableEntries = [false, false]
        self.mark = nil
        self.pendingSync = nil
        guard self.isPersistent else { return (.none, []) }
        // A temporary file is an unfinished replacement: what it holds was never published.
        try? StateFile.remove(self.logPath + ".tmp")
        try? StateFile.remove(self.journalPath + ".tmp")
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
        // After the generations are known, so that the new epoch's first slot is the newest.
        if let reason = self.checkMark() {
            return (.distrusted(reason: reason, discardFailure: self.discardDistrustedState()), [])
        }
        var newest: (slot: Int, checkpoint: Checkpoint, bytes: FileBytes)?
        for (slot, checkpoint) in headers.sorted(by: { $0.checkpoint.generation > $1.checkpoint.generation }) where newest == nil {
            do throws(StateDamage) {
                newest = (slot, checkpoint, try self.readBytes(of: slot, described: checkpoint))
            } catch {
                unusable.append(error)
            }
        }
        let setAside = unusable.map(DamagedStateFile.setAside)
        for (slot, checkpoint) in headers where !unusable.contains(where: { $0.path == self.slotPath(slot) }) {
            self.durableEntries[slot] = true
            self.slotCursors[slot] = checkpoint.cursor
        }
        // Entries found in the directory may not be durable yet (the daemon was killed before
        // it synced them): make them so before anything is served from them.
        if !headers.isEmpty { try? StateFile.syncDirectory(of: self.logPath) }
        // Only the newest slot's changeset is needed (a whole-list change's may take hundreds of MiB).
        headers = []
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
        // Let go of once its kept lines are copied, before the list is parsed: a log may hold
        // hundreds of MiB (`history_max_mib`), which would add to the parse's peak.
        var logFile: [UInt8]?
        do throws(StateFileError) {
            logFile = try StateFile.read(self.logPath)
        } catch {
            return (self.damaged(StateDamage(path: self.logPath, reason: .unreadable(error))), setAside)
        }
        // Taken out of `newest`, so that the slot's bytes are let go of once the journal is
        // replayed over them, before the list is parsed.
        guard case (let slot, let checkpoint, var slotBytes)? = newest.take() else {
            if logFile == nil { return (.none, setAside) }
            let found = setAside.isEmpty ? "there is no checkpoint" : "no checkpoint reads"
            return (self.damaged(StateDamage(path: self.logPath, reason: .inconsistent("\(found), so the log leads to no version"))), setAside)
        }
        self.slotCursors[slot] = checkpoint.cursor
        // The versions saved since the slot's, replayed from the journal.
        let saved: SavedVersion
        var bytes: FileBytes
        let replayed: [JournalSplice]
        do throws(StateDamage) {
            (saved, bytes, replayed) = try self.replayJournal(after: checkpoint.saved, bytes: slotBytes)
        } catch {
            return (self.damaged(error), setAside)
        }
        // Issue 19: the slot was mapped (``readBytes(of:described:)``): the replayed records'
        // inserted bytes are mapped where they lie in the journal and spliced in, so the restored
        // version is parsed from the state files, never whole in anonymous memory but for what
        // the parse copies of bytes in pieces; its bytes in memory when they cannot be mapped.
        if slotBytes.holdsMappings {
            self.mappedSlots[slot] = true
            if !replayed.isEmpty {
                bytes = self.mappedRestoredBytes(slot: slot, slotByteCount: checkpoint.byteCount, replayed: replayed, byteCount: bytes.count) ?? FileBytes(bytes.array)
            }
        }
        slotBytes = FileBytes()
        let changed = saved.watch.fields(differingFrom: watch).intersection(WatchConfiguration.Field.persistentIdentities)
        guard changed.isEmpty else { return (.identityChanged(changed), setAside) }
        // Slices of the log file read: only the lines kept in memory are copied.
        var changesets: [ArraySlice<UInt8>] = []
        do throws(StateDamage.Reason) {
            if let logFile, let decoded = try ChangesetLog.decode(logFile, epoch: saved.cursor.epoch, leadingTo: saved.cursor.seq) {
                guard saved.changeset != nil || decoded.log.lastSeq == saved.cursor.seq else {
                    throw .inconsistent("the log ends at version \(decoded.log.lastSeq), before the first of its epoch, \(saved.cursor.seq)")
                }
                var log = decoded.log
                try Self.cutTornTail(of: &log, file: logFile, at: self.logPath)
                self.log = log
                self.archive.replace(with: log, at: self.logPath)
                changesets = decoded.lines
            } else if saved.changeset != nil {
                // Only the first version of an epoch needs no log: its log is written after it.
                throw logFile == nil ? .missing : .inconsistent("the log is of another epoch than the checkpoint's")
            }
        } catch {
            return (self.damaged(StateDamage(path: self.logPath, reason: error)), setAside)
        }
        if let changeset = saved.changeset, self.log?.lastSeq != saved.cursor.seq {
            changesets.append(changeset.array[...])
        }
        let kept = self.keptInMemory(changesets)
        changesets = []
        logFile = nil
        var version: WatchVersion
        var reader: IncrementalListReader
        do throws(StateDamage.Reason) {
            (version, reader) = try Self.version(at: saved.cursor, digest: saved.digest, of: bytes, readWith: saved.watch)
        } catch {
            return (self.damaged(StateDamage(path: saved.cursor == checkpoint.cursor ? self.slotPath(slot) : self.journalPath, reason: error)), setAside)
        }
        self.live = saved
        // Issue 19: held from here on as mappings of the slot and journal records it was rebuilt
        // from (the same bytes), as after a save: read from them already, or mapped now (a slot
        // converted from a legacy checkpoint), its bytes in memory going with this restore.
        let newlyMappedBytes: FileBytes?
        if bytes.holdsMappings {
            self.mappedLiveBytes = bytes
            newlyMappedBytes = nil
        } else {
            self.mappedLiveBytes = self.mappedRestoredBytes(slot: slot, slotByteCount: checkpoint.byteCount, replayed: replayed, byteCount: bytes.count)
            newlyMappedBytes = self.mappedLiveBytes
        }
        // Its records likewise, written to the watch's records file and mapped from it.
        let mappedRecords = version.list.linearRecords.flatMap { self.savedRecords?.mapped($0) }
        if newlyMappedBytes != nil || mappedRecords != nil {
            version = WatchVersion(version, holding: newlyMappedBytes, records: mappedRecords)
            reader.hold(newlyMappedBytes, records: mappedRecords)
        }
        self.restoredReader = reader
        self.liveBytes = version.list.fileBytes
        // Bring the log up to the restored version now; if that fails, the next save tries again.
        // A full checkpoint that is due waits for the next settle: the watch is served first.
        try? self.settleLog(writingCheckpoint: false)
        return (.restored(version, watch: saved.watch, changesets: kept), setAside)
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
    ///
    /// Read by an ``IncrementalListReader`` (the list ``ListReader`` reads), which is returned
    /// too: it follows the version's bytes, for the tracker's next read.
    private static func version(
        at cursor: Cursor, digest: ListDigest, of bytes: FileBytes, readWith watch: WatchConfiguration
    ) throws(StateDamage.Reason) -> (WatchVersion, IncrementalListReader) {
        let version: WatchVersion
        var reader = IncrementalListReader(options: watch.readOptions)
        do {
            version = WatchVersion(epoch: cursor.epoch, seq: cursor.seq, list: try reader.read(bytes: bytes))
        } catch {
            throw .inconsistent("the stored list does not read: \(error)")
        }
        // Checkpoints hold the version 2 digest; those saved before protocol version 2 the version 1 one.
        guard version.digest == digest || version.v1Digest == digest else { throw .inconsistent("the stored list does not match its digest") }
        return (version, reader)
    }

    /// The reader that read the restored version (``restore(for:)``), once: the tracker's from
    /// then on. `nil` when nothing was restored, or it was taken.
    mutating func takeRestoredReader() -> IncrementalListReader? {
        defer { self.restoredReader = nil }
        return self.restoredReader
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
    private mutating func convertLegacyCheckpoint() throws(StateDamage) -> (slot: Int, checkpoint: Checkpoint, bytes: FileBytes)? {
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
            (version, _) = try Self.version(at: legacy.cursor, digest: legacy.digest, of: FileBytes(legacy.bytes), readWith: legacy.watch)
        } catch {
            throw StateDamage(path: path, reason: error)
        }
        let seq = legacy.cursor.seq
        let changeset: FileBytes?
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
            changeset = log.records.isEmpty ? nil : lines.last.map { FileBytes(Array($0)) }
        } catch {
            throw StateDamage(path: self.logPath, reason: error)
        }
        let slot = self.targetSlot
        let checkpoint: Checkpoint
        do throws(StateFileError) {
            let saved = SavedVersion(cursor: version.cursor, digest: version.digest, changeset: changeset, watch: legacy.watch)
            checkpoint = try self.writeSlot(saved, bytes: FileBytes(legacy.bytes), staged: nil)
        } catch {
            throw StateDamage(path: self.slotPath(slot), reason: .unreadable(error))
        }
        try? StateFile.remove(path)
        return (slot, checkpoint, FileBytes(legacy.bytes))
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

    /// The list's bytes in slot `slot`, checked against its header: mapped when the store maps
    /// saved bytes (``mapsSavedBytes``; issue 19: a restore does not hold the slot whole in
    /// anonymous memory, and the checksum lets its pages go a stretch at a time), else read.
    private func readBytes(of slot: Int, described checkpoint: Checkpoint) throws(StateDamage) -> FileBytes {
        let path = self.slotPath(slot)
        do throws(StateDamage.Reason) {
            // Only bytes the file holds are mapped: a read of a page past its end is a SIGBUS.
            if self.mapsSavedBytes, checkpoint.byteCount > 0,
                let size = try? StateFile.size(of: path), size >= Checkpoint.bytesOffset + checkpoint.byteCount,
                let mapped = Self.mappedBytes(of: path, offset: Checkpoint.bytesOffset, count: checkpoint.byteCount)
            {
                try checkpoint.verify(mapped)
                return mapped
            }
            guard let bytes = try Self.read(path, from: Checkpoint.bytesOffset, count: checkpoint.byteCount) else { throw .missing }
            try checkpoint.verify(bytes[...])
            return FileBytes(bytes)
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

    /// The version the journal's records after `slot`'s version lead to, and its bytes rebuilt
    /// from `bytes` (the slot's); the slot's own when the journal holds nothing after it (or is
    /// of another epoch, or ends before it: left from before the slot was written, and replaced
    /// at the next settle). A torn last record is cut off (its version was never published).
    /// Also the records replayed, as their mapped bytes are spliced in (``JournalSplice``).
    private mutating func replayJournal(
        after slot: SavedVersion, bytes: FileBytes
    ) throws(StateDamage) -> (SavedVersion, FileBytes, [JournalSplice]) {
        let path = self.journalPath
        do throws(StateDamage.Reason) {
            guard let file = try Self.read(path) else { return (slot, bytes, []) }
            let (journal, entries) = try DeltaJournal.decode(file, name: self.name)
            guard journal.epoch == slot.cursor.epoch, journal.lastSeq >= slot.cursor.seq else { return (slot, bytes, []) }
            guard journal.baseSeq <= slot.cursor.seq else {
                throw .inconsistent("the journal starts at version \(journal.baseSeq), after the newest readable checkpoint's \(slot.cursor.seq)")
            }
            var replay = DeltaReplay(base: bytes)
            var saved = slot
            var replayed: [JournalSplice] = []
            for (index, entry) in entries.enumerated() where entry.version.cursor.seq > slot.cursor.seq {
                guard replay.apply(entry.delta), replay.count == entry.byteCount else {
                    throw .inconsistent("the journal's version \(entry.version.cursor.seq) does not apply to the version before it")
                }
                saved = entry.version
                replayed.append(JournalSplice(entry, recordStart: index == 0 ? journal.headerEnd : journal.records[index - 1].end))
            }
            var kept = journal
            try Self.cutTornTail(of: &kept, file: file, at: path)
            self.journal = kept
            // Not copied when the slot is mapped: the caller maps the records' bytes and splices them in.
            return (saved, saved.cursor == slot.cursor ? bytes : bytes.holdsMappings ? replay.fileBytes() : FileBytes(replay.bytes()), replayed)
        } catch {
            throw StateDamage(path: path, reason: error)
        }
    }

    /// Cuts the file at `path`, read whole as `file`, where the records `value` read end, when
    /// anything but zeros follows them (a record a crash cut short: its version was never
    /// published, and no later, shorter record may be followed by what is left of it); zeros
    /// are kept for the next appends.
    private static func cutTornTail<File: SequencedRecordFile>(of value: inout File, file: [UInt8], at path: String) throws(StateDamage.Reason) {
        let (region, isClean) = ZeroFilledAppendRegion.found(in: file, recordsEnd: value.size)
        if !isClean {
            do throws(StateFileError) {
                try StateFile.truncate(path, to: value.size)
            } catch {
                throw .unreadable(error)
            }
        }
        value.fileSize = region.size
    }

    /// Starts saving a version whose file holds `bytes` whole, writing them over the slot the
    /// next full save writes and asking the kernel to write them out, so that this, the bulk of
    /// saving a large list whole, overlaps reading and diffing it. ``save(_:changeset:watch:staged:)``
    /// finishes it. `nil` when nothing is saved (benchmarks), when the version goes to the
    /// journal (there is one: only its changed bytes are written), or when the log does not lead
    /// to the last saved version yet (the slot must not be touched before it does).
    func stageCheckpoint(of bytes: FileBytes) throws(StateFileError) -> StagedCheckpoint? {
        guard self.stagesCheckpoints else { return nil }
        try StateFile.createDirectory(self.directory)
        let (parts, checksum) = Checkpoint.leadingParts(of: bytes)
        try self.unlinkMappedSlot(self.targetSlot)
        let overwrite = try StateFile.Overwrite(of: self.slotPath(self.targetSlot), writing: parts)
        return StagedCheckpoint(slot: self.targetSlot, byteCount: bytes.count, checksum: checksum, overwrite: overwrite)
    }

    /// Whether ``stageCheckpoint(of:)`` would stage one now (no journal to append to): when not,
    /// the tracker does not even compare the new bytes with the live version's.
    var stagesCheckpoints: Bool {
        self.isPersistent && self.logIsSettled && self.journal == nil
    }

    /// A checkpoint whose bytes are written, waiting for its header.
    struct StagedCheckpoint: Sendable {
        let slot: Int
        let byteCount: Int
        let checksum: UInt64
        let overwrite: StateFile.Overwrite

        /// Drops the checkpoint: the version it was for is not published. The slot it was
        /// written over is left torn, which its reader detects; the next save writes it again.
        func abandon() {
            self.overwrite.abandon()
        }
    }

    /// Makes `version` durable: a record of how its bytes differ from the last saved version's,
    /// with `changeset`, the line that publishes it, appended to the journal and flushed — or,
    /// for the first version of an epoch (`changeset` `nil`), without a journal, or when `staged`
    /// holds its bytes, its slot (see ``Checkpoint``) written over the older one and flushed.
    /// Returns once it is on disk. Call ``settleLog(writingCheckpoint:)`` once the version is published.
    ///
    /// After a failure the version is not durable and must not be published; saving it again
    /// later (with the same `seq`) writes it again.
    ///
    /// The version's bytes are taken as its list holds them (``ParsedList/fileBytes``), in
    /// pieces when they share storage with the version before: the delta is compared and its
    /// record written piece by piece, and a slot is written from the pieces — never a whole copy.
    mutating func save(_ version: WatchVersion, changeset: FileBytes?, watch: WatchConfiguration, staged: StagedCheckpoint? = nil) throws(StateFileError) {
        try self.save(version, bytes: version.list.fileBytes, changeset: changeset, watch: watch, staged: staged)
    }

    /// ``save(_:changeset:watch:staged:)`` of `version` whose file holds `bytes` (its list's
    /// bytes, in whatever pieces they are held).
    mutating func save(
        _ version: WatchVersion, bytes: FileBytes, changeset: FileBytes?, watch: WatchConfiguration, staged: StagedCheckpoint? = nil
    ) throws(StateFileError) {
        guard self.isPersistent else {
            staged?.abandon()
            return
        }
        var staged = staged
        self.lastJournalAppendStarted = nil
        if self.publishesBeforeSync {
            do throws(StateFileError) {
                // Left by a save whose version was not published (the tracker flushes after each publication).
                _ = self.syncPublished()
                try self.writeMark()
            } catch {
                staged?.abandon()
                throw error
            }
        }
        if let checkpoint = staged, checkpoint.slot != self.targetSlot || checkpoint.byteCount != bytes.count {
            checkpoint.abandon()
            self.forgetSlot(checkpoint.slot)
            staged = nil
        }
        do throws(StateFileError) {
            try self.settleLog(writingCheckpoint: false)
        } catch {
            staged?.abandon()
            throw error
        }
        let saved = SavedVersion(cursor: version.cursor, digest: version.digest, changeset: changeset, watch: watch)
        if staged == nil, changeset != nil, var journal = self.journal, let live = self.live, let liveBytes = self.liveBytes,
            journal.epoch == saved.cursor.epoch, journal.lastSeq == live.cursor.seq, live.cursor.epoch == saved.cursor.epoch,
            live.cursor.seq + 1 == saved.cursor.seq
        {
            // The ends the reader kept from the live version's bytes need no comparing again.
            let known = version.unchangedBytes.flatMap { $0.previous == live.cursor ? ($0.prefix, $0.suffix) : nil } ?? (0, 0)
            let entry = DeltaJournal.Entry(version: saved, byteCount: bytes.count, delta: ByteDelta(from: liveBytes, to: bytes, known: known))
            let record = DeltaJournal.record(entry)
            if journal.admits(record, listBytes: bytes.count) {
                // `nil` while the journal on disk is in doubt (a write failed half-way): the next
                // save writes its version whole, and the next settle starts a new journal.
                self.journal = nil
                self.lastJournalAppendStarted = .now
                let unflushed = try journal.append(
                    record, seq: saved.cursor.seq, to: self.journalPath, limit: DeltaJournal.zeroFilledBytes(forListOf: bytes.count),
                    deferringFlush: self.publishesBeforeSync, kind: "deltas", crashPoints: self.crashPoints)
                self.pendingSync = unflushed.map { PendingSync(cursor: saved.cursor, file: $0, kind: "deltas") }
                self.mapJournalRecord(entry, recordCount: record.count, journal: journal, after: self.mappedLiveBytes)
                self.journal = journal
                self.live = saved
                self.liveBytes = self.mappedLiveBytes ?? bytes
                self.crashPoints.reach("published")
                return
            }
            // The journal is at its bound (full checkpoints keep failing, or this record alone
            // outweighs the list): the version is written whole instead, and when that fails
            // too it is not saved — the journal stays as it is, leading to the live version.
            do throws(StateFileError) {
                try self.writeSlot(saved, bytes: bytes, staged: nil, deferringFlush: self.publishesBeforeSync)
            } catch {
                throw .journalFull(bound: DeltaJournal.mostBytes(forListOf: bytes.count), checkpoint: error)
            }
        } else {
            try self.writeSlot(saved, bytes: bytes, staged: staged, deferringFlush: self.publishesBeforeSync)
        }
        // The journal on disk leads to an older version: a new one starts at this slot.
        self.journal = nil
        self.crashPoints.reach("published")
    }

    /// Writes the slot of `saved`, whose file holds `bytes`, over the older slot and flushes it
    /// (or, `deferringFlush`, leaves the flush to ``syncPublished()``); returns its header.
    @discardableResult
    private mutating func writeSlot(
        _ saved: SavedVersion, bytes: FileBytes, staged: StagedCheckpoint?, deferringFlush: Bool = false
    ) throws(StateFileError) -> Checkpoint {
        let slot = self.targetSlot
        let overwrite: StateFile.Overwrite
        let checksum: UInt64
        if let staged {
            (overwrite, checksum) = (staged.overwrite, staged.checksum)
        } else {
            try StateFile.createDirectory(self.directory)
            let leading = Checkpoint.leadingParts(of: bytes)
            // Overwriting starts here: the slot no longer holds its version.
            self.forgetSlot(slot)
            try self.unlinkMappedSlot(slot)
            (overwrite, checksum) = (try StateFile.Overwrite(of: self.slotPath(slot), writing: leading.parts), leading.checksum)
        }
        self.forgetSlot(slot)
        let checkpoint = Checkpoint(saved, byteCount: bytes.count, generation: self.generation, bytesChecksum: checksum)
        let unflushed = try overwrite.finish(
            writing: [checkpoint.trailer], newEntry: !self.durableEntries[slot], deferringFlush: deferringFlush, kind: "checkpoint",
            crashPoints: self.crashPoints)
        self.pendingSync = unflushed.map { PendingSync(cursor: saved.cursor, file: $0, kind: "checkpoint") }
        self.durableEntries[slot] = true
        self.generation += 1
        self.newestSlot = slot
        self.slotCursors[slot] = saved.cursor
        self.live = saved
        self.mapSlot(slot, byteCount: bytes.count)
        self.liveBytes = self.mappedLiveBytes ?? bytes
        return checkpoint
    }

    /// Flushes what the last ``save(_:changeset:watch:staged:)`` wrote and left unflushed
    /// (``publishesBeforeSync``): call it right after the version is published. `nil` when
    /// nothing waited. A flush that fails is tried again (``PendingSync/attempts``); then, since
    /// the version may be lost by a crash although it was published, the mark records it
    /// (durably, when it can), so that the next restore starts a new epoch, and the journal is
    /// dropped (the next version is written whole). The caller starts a new epoch before it
    /// publishes another version.
    mutating func syncPublished() -> PendingSync.Outcome? {
        guard let pending = self.pendingSync.take() else { return nil }
        self.crashPoints.reach("published-unsynced")
        var outcome = pending.flush(crashPoints: self.crashPoints)
        guard !outcome.failures.isEmpty else { return outcome }
        self.journal = nil
        var mark = self.mark ?? PublishedBeforeSyncMark(bootID: self.bootID ?? "")
        mark.syncFailed = true
        do throws(StateFileError) {
            try StateFile.replace(self.markPath, with: [mark.bytes], kind: "mark", crashPoints: self.crashPoints)
            self.mark = mark
        } catch {
            outcome.markFailure = error
        }
        return outcome
    }

    /// Writes the mark of this boot (``PublishedBeforeSyncMark``), durably, unless it is there.
    private mutating func writeMark() throws(StateFileError) {
        guard self.mark == nil, let bootID = self.bootID else { return }
        try StateFile.createDirectory(self.directory)
        let mark = PublishedBeforeSyncMark(bootID: bootID)
        try StateFile.replace(self.markPath, with: [mark.bytes], kind: "mark", crashPoints: self.crashPoints)
        self.mark = mark
    }

    /// Flushes every state file (whoever wrote it) and the directory.
    private func syncFiles() throws(StateFileError) {
        for path in [self.slotPath(0), self.slotPath(1), self.journalPath, self.logPath] {
            try StateFile.sync(path)
        }
        try StateFile.syncDirectory(of: self.logPath)
    }

    /// Ends the watch cleanly: everything written is flushed and the mark removed, so that the
    /// next start keeps the epoch even after the machine stopped. A mark that says a flush
    /// failed stays. Returns whether a mark was removed; nothing to do without a mark.
    mutating func stopCleanly() throws(StateFileError) -> Bool {
        guard self.isPersistent, let mark = self.mark else { return false }
        _ = self.syncPublished()
        try self.syncFiles()
        guard !mark.syncFailed, self.mark?.syncFailed != true else { return false }
        try StateFile.remove(self.markPath)
        try StateFile.syncDirectory(of: self.markPath)
        self.mark = nil
        return true
    }

    /// Reads the mark, if any: why the state cannot be trusted (another boot, a failed flush,
    /// an unreadable mark), or `nil` when it can. A mark of this boot (the daemon was killed)
    /// is trusted: what it wrote is flushed now, before anything is served from it, and the
    /// mark is removed, or kept when this daemon publishes before it flushes too.
    private mutating func checkMark() -> String? {
        let mark: PublishedBeforeSyncMark
        do throws(StateDamage.Reason) {
            guard let bytes = try Self.read(self.markPath) else { return nil }
            mark = try PublishedBeforeSyncMark(decoding: bytes)
        } catch .unreadable(.failed(_, let error)) where error.code == ENOTDIR {
            // The watch's directory is not one: there is no mark, and the slots say what is wrong.
            return nil
        } catch {
            return "the mark of versions published before they were durable (\(self.markPath)) cannot be read (\(error)); they may be lost"
        }
        if let reason = mark.distrust(under: self.bootID) { return reason }
        do throws(StateFileError) {
            try self.syncFiles()
            if self.publishesBeforeSync {
                self.mark = mark
            } else {
                try StateFile.remove(self.markPath)
                try StateFile.syncDirectory(of: self.markPath)
            }
        } catch {
            // The mark stays: if the machine stops before the files are flushed, the next start
            // begins a new epoch.
            self.mark = mark
        }
        return nil
    }

    /// Removes the state a mark distrusts — slots, journal, log — then the mark, so that a crash
    /// on the way leaves the mark (and the next start discards the rest). Returns what could not
    /// be removed; the mark then stays, and the next save replaces what it must.
    private mutating func discardDistrustedState() -> StateFileError? {
        do throws(StateFileError) {
            for path in [self.slotPath(0), self.slotPath(1), self.journalPath, self.logPath, self.legacyCheckpointPath] {
                try StateFile.remove(path)
                try StateFile.remove(path + ".tmp")
            }
            try StateFile.syncDirectory(of: self.markPath)
            try StateFile.remove(self.markPath)
            try StateFile.syncDirectory(of: self.markPath)
            return nil
        } catch {
            return error
        }
    }

    /// Notes that slot `slot` no longer holds a version (it is being overwritten, or was removed).
    mutating func forgetSlot(_ slot: Int) {
        self.slotCursors[slot] = nil
        if self.newestSlot == slot { self.newestSlot = nil }
    }

    /// Whether the log leads to the last saved version.
    private var logIsSettled: Bool {
        guard let live = self.live else { return true }
        return self.log.map { $0.epoch == live.cursor.epoch && $0.lastSeq == live.cursor.seq } ?? false
    }

    /// Makes the log lead to the last saved version: appends its changeset and `fdatasync`s, or
    /// starts a new log for a new epoch (or when the log on disk is in doubt). The tracker calls
    /// it once the version is published, off the path to subscribers; ``save(_:changeset:watch:staged:)``
    /// calls it first in case it failed.
    ///
    /// When the disk has no room for the changeset, the log starts afresh at the saved version
    /// (whose journal record or slot carries the changeset), so the next version can still be saved once
    /// the disk has room for it: the epoch and the history in memory are kept, but the history
    /// on disk now starts at that version (``takeDroppedHistory()`` says so, once).
    ///
    /// Then it starts a new journal, or — with `writingCheckpoint`, which the tracker's settle
    /// after publishing passes, and restore and save do not, so the list is never written whole
    /// on their way to subscribers — writes a full checkpoint when one is due (see
    /// ``WatchStateStore``). Those are only tried: when they fail, saves go on (whole, or to the
    /// journal) and the next settle tries again.
    mutating func settleLog(writingCheckpoint: Bool = true) throws(StateFileError) {
        guard self.isPersistent, let live = self.live else { return }
        if !self.logIsSettled {
            do throws(StateFileError) {
                try self.extendLog(to: live)
            } catch where error.isOutOfSpace {
                let seq = live.cursor.seq
                let (empty, header) = ChangesetLog.empty(epoch: live.cursor.epoch, baseSeq: seq)
                try self.rewriteLog(empty, header: header, appending: nil, seq: seq)
                self.droppedHistory = (seq, error)
            }
        }
        try? self.settleJournal(writingCheckpoint: writingCheckpoint)
    }

    /// Starts a journal at the newest slot when there is none that leads to the live version
    /// (and the slot holds it), or writes the live version whole over the older slot when a
    /// checkpoint is due (and `writingCheckpoint`), rebasing the journal on the newer slot first.
    private mutating func settleJournal(writingCheckpoint: Bool) throws(StateFileError) {
        guard let live = self.live, let liveBytes = self.liveBytes, let newestSlot = self.newestSlot,
            let newest = self.slotCursors[newestSlot], newest.epoch == live.cursor.epoch
        else { return }
        guard let journal = self.journal, journal.epoch == live.cursor.epoch, journal.lastSeq == live.cursor.seq else {
            guard newest == live.cursor else { return }
            var (empty, file) = DeltaJournal.empty(epoch: live.cursor.epoch, baseSeq: live.cursor.seq)
            self.journal = nil
            try empty.write(
                to: self.journalPath, header: file, limit: DeltaJournal.zeroFilledBytes(forListOf: liveBytes.count), kind: "deltas-rewrite",
                crashPoints: self.crashPoints)
            self.journal = empty
            return
        }
        guard writingCheckpoint, newest != live.cursor, newest.seq >= journal.baseSeq else { return }
        let other = self.slotCursors[1 - newestSlot]
        let twoSlotsLead = other.map { $0.epoch == journal.epoch && $0.seq >= journal.baseSeq } ?? false
        let since = journal.recordsAfter(newest.seq)
        guard !twoSlotsLead || since.count >= DeltaJournal.mostRecords || since.bytes > liveBytes.count / 4 else { return }
        if journal.baseSeq < newest.seq {
            var (rebased, header, from) = journal.rebased(on: newest.seq)
            self.journal = nil
            try rebased.write(
                to: self.journalPath, header: header, copying: from..<journal.size, limit: DeltaJournal.zeroFilledBytes(forListOf: liveBytes.count),
                kind: "deltas-rewrite", crashPoints: self.crashPoints)
            self.journal = rebased
        }
        try self.writeSlot(live, bytes: liveBytes, staged: nil)
    }

    /// The version at which the log last started afresh for want of space, and the error that
    /// made it; `nil` once taken (so it is reported once).
    mutating func takeDroppedHistory() -> (seq: UInt64, error: StateFileError)? {
        defer { self.droppedHistory = nil }
        return self.droppedHistory
    }

    /// Appends the changeset of `live` to the log, or rewrites the log to make room or for a new epoch.
    private mutating func extendLog(to live: SavedVersion) throws(StateFileError) {
        let seq = live.cursor.seq
        let record = live.changeset.map { ChangesetLog.record(seq: seq, line: $0) }
        if let record, var log = self.log, log.epoch == live.cursor.epoch, log.lastSeq + 1 == seq {
            if log.records.count < self.historyLength, log.recordBytes + record.count <= self.historyMaxBytes {
                // `nil` while the log on disk is in doubt (a write failed half-way): the next
                // settle replaces it.
                self.log = nil
                try log.append(record, seq: seq, to: self.logPath, limit: self.historyMaxBytes, kind: "log", crashPoints: self.crashPoints)
                self.log = log
                self.archive.update(log)
                return
            }
            // Over a bound: keep the newest changesets that fill three quarters of each, so the
            // log is rewritten once in a while, not at every append. The new changeset is kept
            // however large.
            let kept = log.newestCount(
                atMost: self.historyLength - 1 - self.historyLength / 4, fittingIn: self.historyMaxBytes - self.historyMaxBytes / 4 - record.count)
            if try StateFile.size(of: self.logPath) == log.fileSize {
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
        guard self.isPersistent, var live = self.live, live.cursor == version.cursor, live.watch.path != path else { return }
        live.watch.path = path
        try self.settleLog(writingCheckpoint: false)
        try self.writeSlot(live, bytes: version.list.fileBytes, staged: nil)
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
        _ log: ChangesetLog, header: [UInt8], copying kept: Range<Int> = 0..<0, appending record: FileBytes?, seq: UInt64
    ) throws(StateFileError) {
        var log = log
        if let record {
            log.appended(seq: seq, count: record.count)
        }
        self.log = nil
        // The log is rewritten when the last one is in doubt, which a watch's state directory
        // removed from under the daemon also causes: the directory comes back first, or no save
        // would ever get past the log (a save settles the log before it writes its version).
        try StateFile.createDirectory(self.directory)
        try log.write(
            to: self.logPath, header: header, copying: kept, then: record.map { [$0] } ?? [], limit: self.historyMaxBytes,
            kind: "log-rewrite", crashPoints: self.crashPoints)
        self.log = log
        self.archive.replace(with: log, at: self.logPath)
    }

    /// Moves the file `damage` names aside and forgets the log: the watch starts a new epoch.
    private mutating func damaged(_ damage: StateDamage) -> Restoration {
        self.log = nil
        self.archive.replace(with: nil, at: self.logPath)
        self.live = nil
        self.liveBytes = nil
        self.mappedLiveBytes = nil
        self.journal = nil
        for slot in 0..<2 where self.slotPath(slot) == damage.path {
            self.durableEntries[slot] = false
            self.forgetSlot(slot)
        }
        return .damaged(DamagedStateFile.setAside(damage))
    }
}
