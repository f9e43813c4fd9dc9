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
        let delta = entry.delta
        guard let previous, previous.count == entry.byteCount - delta.inserted.count + delta.removed,
            let inserted = Self.mappedBytes(
                of: self.journalPath, offset: journal.size - recordCount + DeltaJournal.insertedBytesOffset(of: entry), count: delta.inserted.count)
        else {
            self.mappedLiveBytes = nil
            return
        }
        self.mappedLiveBytes = previous[0..<delta.prefix] + inserted + previous[(delta.prefix + delta.removed)..<previous.count]
    }

    /// Unlinks slot `slot`'s file when this store has mapped it, before the slot is written
    /// again: the new slot is a new file, and the mapped inode stays as it is.
    func unlinkMappedSlot(_ slot: Int) throws(StateFileError) {
        guard self.mappedSlots[slot] else { return }
        try StateFile.remove(self.slotPath(slot))
    }
}
