import DurableFiles
import ListSyncProtocol

/// The versions of one watch saved since a checkpoint, as kept in `<state>/<watch>/deltas`: per
/// version only how its bytes differ from the version before (``ByteDelta``), with its cursor,
/// digest, changeset line and settings. Saving a version appends one record and syncs it;
/// restoring reads a checkpoint slot and replays the records after its version
/// (``DeltaReplay``).
///
/// On disk: the magic `LSYNCDJ1`, a framed header (the epoch, and the `seq` of the version the
/// first record applies to — the version of a checkpoint slot), then one framed record per
/// version: its `seq`, the length of its bytes, the delta (prefix, removed, inserted bytes), its
/// digest, its changeset line or none, then the watch's settings as a checkpoint's header ends
/// with them; then zeros up to the file's end (a ``ZeroFilledAppendRegion``, at most
/// ``mostBytes(forListOf:)`` with the records). Records are only ever appended — written over
/// the zeros and `fdatasync`ed, so that a version's flush changes neither the file's size nor its
/// blocks and needs no commit of the file system's journal — or the whole journal is replaced
/// atomically (with its zeros): started afresh at a checkpoint slot, or rebased on the newer slot
/// before the older one is overwritten, so that it always starts at or before the version of
/// every slot of its epoch and either slot with the journal leads to the newest version. A
/// journal written before the zeros (its records up to its end) reads the same.
struct DeltaJournal: SequencedRecordFile {
    static let magic = Array("LSYNCDJ1".utf8)
    static let fileName = "deltas"
    /// The most records after the newest checkpoint before a new checkpoint is written: bounds
    /// the replay at a restart (``DeltaReplay`` is quadratic in them).
    static let mostRecords = 256
    /// The most records the journal holds, whether or not full checkpoints can be written: four
    /// times ``mostRecords``, which a journal whose checkpoints are written never reaches.
    static let mostRecordsKept = 4 * mostRecords
    /// The fewest bytes ``mostBytes(forListOf:)`` allows, so that a small list is not saved whole
    /// at every version when its checkpoints cannot be written.
    static let leastBound = 64 << 10

    /// The most bytes the journal of a list of `listBytes` bytes takes, whether or not full
    /// checkpoints can be written: the list's size, at least ``leastBound`` — its records, and
    /// its file on disk with the zeros after them. A journal whose
    /// checkpoints are written stays near half of it (records since the older slot); one that
    /// would outgrow it gets no more records: the version is written whole to a slot instead,
    /// and when that fails too, it is not saved (``StateFileError/journalFull(bound:checkpoint:)``).
    static func mostBytes(forListOf listBytes: Int) -> Int {
        max(listBytes, Self.leastBound)
    }

    /// The size up to which the zeros after the records extend the journal's file
    /// (``ZeroFilledAppendRegion``) for a list of `listBytes` bytes: half of
    /// ``mostBytes(forListOf:)``, what a journal whose checkpoints are written holds, so that its
    /// appends never change the file's size in the steady state, and the file outgrows it only
    /// by records (never by zeros) when checkpoints fail.
    static func zeroFilledBytes(forListOf listBytes: Int) -> Int {
        Self.mostBytes(forListOf: listBytes) / 2
    }

    /// Whether `record` may be appended for a version of `listBytes` bytes: the journal stays
    /// within ``mostBytes(forListOf:)`` and ``mostRecordsKept``.
    func admits(_ record: FileBytes, listBytes: Int) -> Bool {
        self.records.count < Self.mostRecordsKept && self.size + record.count <= Self.mostBytes(forListOf: listBytes)
    }

    /// One recorded version.
    struct Entry: Sendable {
        var version: SavedVersion
        /// The length of the version's bytes.
        var byteCount: Int
        /// How they differ from the version before's.
        var delta: ByteDelta
    }

    /// The history the journal belongs to.
    let epoch: Epoch
    /// The `seq` of the version the first record applies to.
    let baseSeq: UInt64
    var records: [(seq: UInt64, end: Int)]
    let headerEnd: Int
    var fileSize: Int

    /// The record of `entry`: its frame, the fields before the inserted bytes, the inserted
    /// bytes' own pieces (shared with the version's bytes, not copied), then the fields after
    /// them — the same bytes as if the payload were built in one buffer, its checksum computed
    /// piece by piece.
    static func record(_ entry: Entry) -> FileBytes {
        let version = entry.version
        var digest = StateWriter(capacity: 40)
        digest.byteString(version.digest.bytes)
        return ChecksummedRecord.frame(
            FileBytes(Self.head(of: entry)) + entry.delta.inserted + Checkpoint.fields(digest, changeset: version.changeset, watch: version.watch))
    }

    /// The fields of `entry`'s record before its inserted bytes.
    private static func head(of entry: Entry) -> [UInt8] {
        var head = StateWriter(capacity: 40)
        head.integer(entry.version.cursor.seq)
        head.integer(UInt64(entry.byteCount))
        head.integer(UInt64(entry.delta.prefix))
        head.integer(UInt64(entry.delta.removed))
        // The inserted bytes' length; the bytes follow, as ``StateWriter/byteString(_:)`` lays them out.
        head.integer(UInt64(entry.delta.inserted.count))
        return head.bytes
    }

    /// Where `entry`'s inserted bytes start in its ``record(_:)``: after the frame's header and
    /// the fields before them (a version's bytes may be mapped from there, issue 19).
    static func insertedBytesOffset(of entry: Entry) -> Int {
        ChecksummedRecord.headerSize + Self.head(of: entry).count
    }

    /// How many records follow version `seq`, and the bytes they take.
    func recordsAfter(_ seq: UInt64) -> (count: Int, bytes: Int) {
        guard let first = self.records.firstIndex(where: { $0.seq > seq }) else { return (0, 0) }
        let start = first == 0 ? self.headerEnd : self.records[first - 1].end
        return (self.records.count - first, self.size - start)
    }

    /// The journal of the records after version `seq` (`baseSeq` ≤ `seq` ≤ `lastSeq`), and its
    /// file's header: the file is that header followed by this journal's file from `from` to its
    /// end, which the caller copies file to file.
    func rebased(on seq: UInt64) -> (journal: DeltaJournal, header: [UInt8], from: Int) {
        let (journal, header, start) = self.dropping(first: self.records.prefix { $0.seq <= seq }.count)
        return (journal, header, start)
    }

    /// Reads the journal of the watch called `name`, up to where its records end (zeros follow,
    /// or the file ends). A torn or garbled last record (only zeros after it) is what a crash
    /// while appending leaves (its version was never published): it is dropped, and ``size``
    /// says where the good part ends. A record that does not follow the one before, or does not
    /// decode, is damage.
    ///
    /// - Returns: The journal and its entries, oldest first (their inserted bytes are slices of `file`).
    static func decode(_ file: [UInt8], name: String) throws(StateDamage.Reason) -> (journal: DeltaJournal, entries: [Entry]) {
        let (epoch, baseSeq, headerEnd) = try Self.header(of: file, kind: "delta journal")
        var reader = StateReader(file, offset: headerEnd)
        var journal = DeltaJournal(epoch: epoch, baseSeq: baseSeq, records: [], headerEnd: headerEnd, fileSize: file.count)
        var entries: [Entry] = []
        while !ZeroFilledAppendRegion.endsRecords(in: file, at: reader.offset) {
            let start = reader.offset
            let payload: ArraySlice<UInt8>
            do throws(StateDamage.Reason) {
                payload = try reader.record()
            } catch {
                // Only the last record can be torn: nothing is appended after a failed append.
                if ZeroFilledAppendRegion.isLastRecord(in: file, at: start) { break }
                throw error
            }
            var record = StateReader(file, within: payload.indices)
            let seq = try record.integer()
            guard seq == journal.lastSeq + 1 else { throw .malformed("version \(seq) does not follow \(journal.lastSeq)", at: start) }
            let byteCount = try record.integer()
            let prefix = try record.integer()
            let removed = try record.integer()
            let inserted = try record.byteString()
            guard let byteCount = Int(exactly: byteCount), let prefix = Int(exactly: prefix), let removed = Int(exactly: removed) else {
                throw .malformed("an impossible length", at: start)
            }
            // The inserted bytes are a slice of the file: the record is read where it lies.
            let delta = ByteDelta(prefix: prefix, removed: removed, inserted: FileBytes(pieces: [.init(storage: file, range: inserted.indices)]))
            guard let digest = ListDigest(bytes: Array(try record.byteString())) else { throw .malformed("a digest that is not 32 bytes", at: start) }
            let changeset: FileBytes?
            switch try record.integer() {
            case 0: changeset = nil
            case 1: changeset = FileBytes(Array(try record.byteString()))
            default: throw .malformed("a flag is neither 0 nor 1", at: start)
            }
            let watch = try Checkpoint.watch(from: &record, name: name, at: start)
            let version = SavedVersion(cursor: Cursor(epoch: epoch, seq: seq), digest: digest, changeset: changeset, watch: watch)
            entries.append(Entry(version: version, byteCount: byteCount, delta: delta))
            journal.records.append((seq, reader.offset))
        }
        return (journal, entries)
    }
}
