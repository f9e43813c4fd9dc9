import DurableFiles
import ListFormats
import ListSyncProtocol

/// A published version of a watch, as described by one of its two checkpoint slots,
/// `<state>/<watch>/checkpoint.0` and `checkpoint.1`: the file's bytes as they were published,
/// the cursor and digest that named them, the changeset that published them, and the watch's
/// settings they were read with, so a restarted daemon reads the same list out of them and can
/// check it against the digest.
///
/// On disk: the magic `LSYNCCP2`, then two framed records (see ``StateWriter/frame(_:)``): the
/// file's bytes, written as they are, never copied into a buffer, then the header (generation,
/// the bytes' length and checksum again, epoch, seq, digest, the changeset line or none, path,
/// format, key, section_by, ignore, delimiter, ragged_rows); the file ends there. The bytes come
/// first so they can be written while the version they make is still being diffed
/// (``leadingParts(of:)``), the header once it is known.
///
/// A slot is overwritten in place, so a crash mid-write leaves it torn: its records' checksums
/// fail, or the header's copy of the bytes' checksum does not match the bytes before it (a new
/// list under an old header). The slot with the highest generation that reads whole is the
/// newest version.
struct Checkpoint: Sendable {
    static let magic = Array("LSYNCCP2".utf8)
    /// The magic and the bytes' frame header: where the bytes start.
    static let bytesOffset = magic.count + ChecksummedRecord.headerSize

    /// Which save wrote the slot: one more than the other slot's when it was written.
    var generation: UInt64
    var byteCount: Int
    var bytesChecksum: UInt64
    var cursor: Cursor
    var digest: ListDigest
    /// The line of the changeset that published this version; `nil` for the first version of
    /// an epoch.
    var changeset: FileBytes?
    /// The watch's settings the bytes were read with (its name is the directory's).
    var watch: WatchConfiguration

    /// The parts of a slot holding `bytes` that come before the header, and the bytes' checksum:
    /// the bytes are their own part, in their own pieces (written from their storage, never
    /// gathered into one buffer), and their checksum is computed piece by piece — the same slot,
    /// byte for byte, as from one array.
    static func leadingParts(of bytes: FileBytes) -> (parts: [FileBytes], checksum: UInt64) {
        let checksum = ChecksummedRecord.checksum(of: bytes)
        return ([FileBytes(Self.magic + ChecksummedRecord.header(count: bytes.count, checksum: checksum)), bytes], checksum)
    }

    /// The header of the slot of `saved`, whose `byteCount` bytes' checksum ``leadingParts(of:)``
    /// computed.
    init(_ saved: SavedVersion, byteCount: Int, generation: UInt64, bytesChecksum: UInt64) {
        self.generation = generation
        self.byteCount = byteCount
        self.bytesChecksum = bytesChecksum
        self.cursor = saved.cursor
        self.digest = saved.digest
        self.changeset = saved.changeset
        self.watch = saved.watch
    }

    /// The version the slot holds, without its bytes.
    var saved: SavedVersion {
        SavedVersion(cursor: self.cursor, digest: self.digest, changeset: self.changeset, watch: self.watch)
    }

    /// The length and checksum of the bytes, as the slot's start gives them.
    static func bytesFrame(from prefix: [UInt8]) throws(StateDamage.Reason) -> (count: Int, checksum: UInt64) {
        guard prefix.starts(with: Self.magic) else { throw .malformed("not a checkpoint (no \(String(decoding: Self.magic, as: UTF8.self)))", at: 0) }
        var reader = StateReader(prefix, offset: Self.magic.count)
        let count = try reader.integer()
        let checksum = try reader.integer()
        guard let count = Int(exactly: count), count <= Int.max - Self.bytesOffset else { throw .malformed("an impossible length", at: Self.magic.count) }
        return (count, checksum)
    }

    /// Checks that `bytes` are the ones the header describes.
    func verify(_ bytes: ArraySlice<UInt8>) throws(StateDamage.Reason) {
        guard bytes.count == self.byteCount, ChecksummedRecord.checksum(of: bytes) == self.bytesChecksum else {
            throw .checksumMismatch(at: Self.bytesOffset - 16)
        }
    }

    /// Checks that `bytes`, held in pieces or mapped (their pages let go of a stretch at a
    /// time, ``ChecksummedRecord/checksum(of:)``), are the ones the header describes.
    func verify(_ bytes: FileBytes) throws(StateDamage.Reason) {
        guard bytes.count == self.byteCount, ChecksummedRecord.checksum(of: bytes) == self.bytesChecksum else {
            throw .checksumMismatch(at: Self.bytesOffset - 16)
        }
    }
}

extension Checkpoint {
    /// The framed header, which ends the slot; its changeset line a piece of it, not copied.
    var trailer: FileBytes {
        var header = StateWriter(capacity: 256)
        header.integer(self.generation)
        header.integer(UInt64(self.byteCount))
        header.integer(self.bytesChecksum)
        header.integer(self.cursor.epoch.rawValue)
        header.integer(self.cursor.seq)
        header.byteString(self.digest.bytes)
        return ChecksummedRecord.frame(Self.fields(header, changeset: self.changeset, watch: self.watch))
    }

    /// `fields`, then whether there is a changeset, the changeset as a byte string, and `watch`'s
    /// settings, as ``StateWriter/byteString(_:)`` and ``encode(_:into:)`` lay them out — the
    /// changeset's line shared, not copied into the fields (a change of every row of a large
    /// list makes a line of tens of MiB, issue 19). Ends a checkpoint's header and a
    /// ``DeltaJournal`` record.
    static func fields(_ fields: StateWriter, changeset: FileBytes?, watch: WatchConfiguration) -> FileBytes {
        var head = fields
        head.integer(changeset == nil ? 0 : 1)
        if let changeset { head.integer(UInt64(changeset.count)) }
        var tail = StateWriter(capacity: 256)
        Self.encode(watch, into: &tail)
        return FileBytes(head.bytes) + (changeset ?? FileBytes()) + FileBytes(tail.bytes)
    }

    /// Appends the watch's settings that end a checkpoint's header (and a ``DeltaJournal``
    /// record): path, format, key, section_by, ignore, delimiter, ragged_rows.
    static func encode(_ watch: WatchConfiguration, into header: inout StateWriter) {
        header.string(watch.path)
        header.string(watch.format.rawValue)
        header.strings(watch.key)
        header.optionalString(watch.sectionBy)
        header.strings(watch.ignore)
        header.integer(watch.delimiter.map { UInt64($0.rawValue) + 1 } ?? 0)
        header.integer(Self.code(of: watch.raggedRows))
    }

    /// Decodes the header of a slot of the watch called `name`, from `trailer` (the slot from
    /// the end of its bytes, at `offset`, to the end of the file), checking it against the
    /// bytes' frame at the slot's start.
    init(decoding trailer: [UInt8], at offset: Int, bytesFrame: (count: Int, checksum: UInt64), name: String) throws(StateDamage.Reason) {
        var reader = StateReader(trailer)
        var header: StateReader
        do throws(StateDamage.Reason) {
            header = StateReader(trailer, within: try reader.record().indices)
        } catch .truncated {
            throw .truncated(at: offset)
        } catch .checksumMismatch {
            throw .checksumMismatch(at: offset)
        }
        guard reader.isAtEnd else { throw .malformed("bytes after the header", at: offset + reader.offset) }
        self.generation = try header.integer()
        let byteCount = try header.integer()
        self.bytesChecksum = try header.integer()
        guard byteCount == UInt64(bytesFrame.count), self.bytesChecksum == bytesFrame.checksum else {
            throw .inconsistent("the header at byte \(offset) describes other bytes than the slot holds (a torn write)")
        }
        self.byteCount = bytesFrame.count
        self.cursor = Cursor(epoch: Epoch(rawValue: try header.integer()), seq: try header.integer())
        guard let digest = ListDigest(bytes: Array(try header.byteString())) else { throw .malformed("a digest that is not 32 bytes", at: offset) }
        self.digest = digest
        switch try header.integer() {
        case 0: self.changeset = nil
        case 1: self.changeset = FileBytes(Array(try header.byteString()))
        default: throw .malformed("a flag is neither 0 nor 1", at: offset)
        }
        self.watch = try Self.watch(from: &header, name: name, at: offset)
    }

    /// Decodes the watch's settings that end a checkpoint's header (path, format, key,
    /// section_by, ignore, delimiter, ragged_rows), laid out alike in every checkpoint format
    /// (see ``LegacyCheckpoint``), for the watch called `name`; the header must end there.
    static func watch(from header: inout StateReader, name: String, at offset: Int) throws(StateDamage.Reason) -> WatchConfiguration {
        let path = try header.string()
        guard let format = WatchConfiguration.Format(rawValue: try header.string()) else { throw .malformed("an unknown format", at: offset) }
        let key = try header.strings()
        let sectionBy = try header.optionalString()
        let ignore = try header.strings()
        let delimiterCode = try header.integer()
        let delimiter = delimiterCode == 0 ? nil : UInt8(exactly: delimiterCode - 1).flatMap(CSVDelimiter.init(rawValue:))
        guard delimiterCode == 0 || delimiter != nil, let raggedRows = Self.raggedRows(code: try header.integer()), header.isAtEnd else {
            throw .malformed("an unknown delimiter or ragged_rows, or bytes after the header", at: offset)
        }
        return WatchConfiguration(
            name: name, path: path, format: format, key: key, sectionBy: sectionBy, ignore: ignore, delimiter: delimiter,
            raggedRows: raggedRows)
    }

    private static let raggedRowPolicies: [RaggedRowPolicy] = [.error, .pad, .truncate]

    private static func code(of policy: RaggedRowPolicy) -> UInt64 {
        UInt64(self.raggedRowPolicies.firstIndex(of: policy) ?? 0)
    }

    private static func raggedRows(code: UInt64) -> RaggedRowPolicy? {
        code < UInt64(self.raggedRowPolicies.count) ? self.raggedRowPolicies[Int(code)] : nil
    }
}
