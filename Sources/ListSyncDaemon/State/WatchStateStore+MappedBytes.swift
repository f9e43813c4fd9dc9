import DurableFiles

/// Issue 19: the live version's bytes as read-only mappings of the state files that already
/// hold them (``mappedLiveBytes``), so that a holder of the version need not keep them in
/// anonymous memory: pages of a mapping count in the resident set only while they are read.
///
/// After a slot is written, the live version is the slot's bytes region, mapped whole. After a
/// journal record, it is the previous version's mapped bytes up to the delta's prefix, the
/// record's inserted bytes mapped where the record lies in the journal, and the previous
/// version's mapped bytes after the removed ones — the bytes the record's replay gives.
///
/// **What is mapped is never written.** Records are only appended to the journal, after every
/// mapped record (a failed append cuts back to where the records ended, never before), and the
/// journal is only ever replaced whole by a rename: a mapping keeps the old inode. A slot is
/// overwritten in place; so before a slot this store has mapped is written again, its file is
/// unlinked (``unlinkMappedSlot(_:)``) and the slot written as a new file (its directory entry
/// flushed): the old inode stays, unchanged, for as long as a mapping of it lives. Nothing else
/// writes the state directory: its lock keeps other daemons out. A file of it cut short by
/// another program (an operator's mistake) would make a read of a mapped page past its new end
/// fail with `SIGBUS`, as for any program that maps files.
///
/// At a restore, the restored version is mapped the same way (``mappedRestoredBytes(slot:slotByteCount:replayed:byteCount:)``):
/// the newest slot's bytes region, with the journal's records replayed over it.
///
/// Only when ``mapsSavedBytes`` is set (the daemon sets it for a watch whose state is saved,
/// unless `LISTSYNCD_MAP_SAVED_BYTES=0`, ``mappingSwitch``); otherwise nothing is mapped and the
/// slots are overwritten in place as before.
extension WatchStateStore {
    /// The `count` bytes of the file at `path` from `offset`, mapped; `nil` when they cannot be
    /// (no address space): the version's bytes then stay as they are held.
    static func mappedBytes(of path: String, offset: Int, count: Int) -> FileBytes? {
        guard count > 0 else { return FileBytes() }
        return (try? MappedFileRegion(path: path, offset: offset, count: count)).map { FileBytes(mapped: $0) }
    }

    /// Notes that slot `slot` now holds the live version's `byteCount` bytes: they are mapped
    /// from it.
    mutating func mapSlot(_ slot: Int, byteCount: Int) {
        guard self.mapsSavedBytes else { return }
        self.mappedSlots[slot] = true
        self.mappedLiveBytes = Self.mappedBytes(of: self.slotPath(slot), offset: Checkpoint.bytesOffset, count: byteCount)
    }

    /// Notes that the journal's last record, `entry`, `recordCount` bytes long, made the live
    /// version from `previous`, the mapped bytes of the version before (`nil`: none, and then
    /// none now either).
    mutating func mapJournalRecord(_ entry: DeltaJournal.Entry, recordCount: Int, journal: DeltaJournal, after previous: FileBytes?) {
        guard self.mapsSavedBytes else { return }
        let record = JournalSplice(entry, recordStart: journal.size - recordCount)
        self.mappedLiveBytes = previous.flatMap { previous in
            previous.count == entry.byteCount - record.inserted.count + record.removed ? self.mappedBytes(splicing: record, into: previous) : nil
        }
    }

    /// What mapping the version a journal record makes takes of the record: its delta's prefix
    /// and removed count, and where its inserted bytes lie in the journal file — not the bytes.
    struct JournalSplice: Sendable {
        var prefix: Int
        var removed: Int
        var inserted: Range<Int>

        /// The splice of `entry`, whose record starts at `recordStart` in the journal file.
        init(_ entry: DeltaJournal.Entry, recordStart: Int) {
            let start = recordStart + DeltaJournal.insertedBytesOffset(of: entry)
            self.prefix = entry.delta.prefix
            self.removed = entry.delta.removed
            self.inserted = start..<(start + entry.delta.inserted.count)
        }
    }

    /// The bytes of the version `record` makes from `previous` (the version before's, mapped):
    /// `previous`'s bytes before the delta's prefix, the record's inserted bytes mapped where
    /// they lie in the journal, then `previous`'s after the removed ones — the bytes the
    /// record's replay gives. `nil` when the delta reaches past `previous` or the record
    /// cannot be mapped.
    func mappedBytes(splicing record: JournalSplice, into previous: FileBytes) -> FileBytes? {
        guard record.prefix >= 0, record.removed >= 0, record.prefix <= previous.count - record.removed,
            let inserted = Self.mappedBytes(of: self.journalPath, offset: record.inserted.lowerBound, count: record.inserted.count)
        else { return nil }
        return previous[0..<record.prefix] + inserted + previous[(record.prefix + record.removed)..<previous.count]
    }

    /// The bytes of the version a restore rebuilds, `byteCount` long, mapped: slot `slot`'s
    /// `slotByteCount` bytes, with the journal's records after the slot's version (`replayed`,
    /// oldest first) spliced in as each record's replay splices them — so a restarted daemon
    /// holds its restored version as the daemon that saved it did. `nil` when not
    /// ``mapsSavedBytes`` or they cannot be mapped. The slot is then written again as a new
    /// file (``unlinkMappedSlot(_:)``); the journal is only appended to, after these records,
    /// or replaced by a rename.
    mutating func mappedRestoredBytes(slot: Int, slotByteCount: Int, replayed: [JournalSplice], byteCount: Int) -> FileBytes? {
        guard self.mapsSavedBytes else { return nil }
        self.mappedSlots[slot] = true
        guard var bytes = Self.mappedBytes(of: self.slotPath(slot), offset: Checkpoint.bytesOffset, count: slotByteCount) else { return nil }
        for record in replayed {
            guard let next = self.mappedBytes(splicing: record, into: bytes) else { return nil }
            bytes = next
        }
        return bytes.count == byteCount ? bytes : nil
    }

    /// Unlinks slot `slot`'s file when this store has mapped it, before the slot is written
    /// again: the new slot is a new file, and the mapped inode stays as it is.
    func unlinkMappedSlot(_ slot: Int) throws(StateFileError) {
        guard self.mappedSlots[slot] else { return }
        try StateFile.remove(self.slotPath(slot))
    }
}
