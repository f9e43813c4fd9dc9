import DurableFiles
import FileWatching

/// Issue 19: the version a save writes whole (the first of an epoch) copied into its checkpoint
/// slot inside the kernel as the watched file is read (``FileSnapshot/copy(atPath:into:at:maximumAttempts:)``),
/// rather than read into memory and written from there: the tracker parses it from a read-only
/// mapping of the slot, its checksum is taken from the mapping, and it is never whole in
/// anonymous memory — a daemon's first load then holds the records and a stretch of the file.
///
/// The slot is the one ``stageCheckpoint(of:)`` would overwrite, opened before the read (a slot
/// this store has mapped is unlinked first and written as a new file, as for every slot
/// written); a read that is refused, fails or gives nothing new abandons it, which removes the
/// file, as an abandoned staged checkpoint is.
extension WatchStateStore {
    /// A checkpoint slot opened to receive the watched file's bytes at ``Checkpoint/bytesOffset``.
    struct SlotCopy: Sendable {
        let slot: Int
        let overwrite: StateFile.Overwrite

        /// The descriptor the read copies the file to, from ``Checkpoint/bytesOffset``.
        var descriptor: Int32 { self.overwrite.receivingDescriptor }

        /// Drops the copy: the slot's file is removed.
        func abandon() {
            self.overwrite.abandon()
        }
    }

    /// Whether the next read is copied into a slot (``openSlotCopy()``): when its version would
    /// be written whole (``stagesCheckpoints``) and the saved bytes are mapped.
    var copiesReadsIntoSlots: Bool {
        self.stagesCheckpoints && self.mapsSavedBytes
    }

    /// Opens the slot the next version written whole goes to, for the read to copy the watched
    /// file into (``copiesReadsIntoSlots``); the slot no longer holds its version from here on.
    /// `nil` when the store does not copy reads, or the slot cannot be opened (the read then
    /// reads into memory, and the save writes the slot as before).
    mutating func openSlotCopy() -> SlotCopy? {
        guard self.copiesReadsIntoSlots else { return nil }
        let slot = self.targetSlot
        do throws(StateFileError) {
            try StateFile.createDirectory(self.directory)
            self.forgetSlot(slot)
            try self.unlinkMappedSlot(slot)
            let overwrite = try StateFile.Overwrite(receivingCopyAt: self.slotPath(slot))
            self.mappedSlots[slot] = true
            return SlotCopy(slot: slot, overwrite: overwrite)
        } catch {
            return nil
        }
    }

    /// The checkpoint staged by a read copied into `copy`, whose bytes are `bytes` (the mapping
    /// of the copy): their checksum taken from the mapping a stretch at a time (each let go of
    /// once hashed), and the slot's magic and frame written before them. As
    /// ``stageCheckpoint(of:)``, for ``save(_:changeset:watch:staged:)`` to finish.
    func stageCopiedCheckpoint(_ copy: SlotCopy, bytes: FileBytes) throws(StateFileError) -> StagedCheckpoint {
        let checksum = ChecksummedRecord.checksum(of: bytes)
        let leading = Checkpoint.magic + ChecksummedRecord.header(count: bytes.count, checksum: checksum)
        assert(leading.count == Checkpoint.bytesOffset, "a slot's bytes start after its magic and frame")
        let overwrite = try copy.overwrite.copied(bytes.count, after: leading)
        return StagedCheckpoint(slot: copy.slot, byteCount: bytes.count, checksum: checksum, overwrite: overwrite)
    }
}
