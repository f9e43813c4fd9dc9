import ListFormats
import ListSyncProtocol

/// The last published version of a watch, as kept in `<state>/<watch>/checkpoint`: the file's
/// bytes as they were published, the cursor and digest that named them, and the watch's settings
/// they were read with, so a restarted daemon reads the same list out of them and can check it
/// against the digest.
///
/// On disk: the magic `LSYNCCP1`, then two framed records (see ``StateWriter/frame(_:)``): the
/// file's bytes, written as they are, never copied into a buffer, then the header (epoch, seq,
/// digest, path, format, key, section_by, ignore, delimiter, ragged_rows). The bytes come first
/// so they can be written while the version they make is still being diffed
/// (``leadingParts(of:)``), the header once it is known.
struct Checkpoint: Sendable {
    static let magic = Array("LSYNCCP1".utf8)

    var cursor: Cursor
    var digest: ListDigest
    /// The watch's settings the bytes were read with (its name is the directory's).
    var watch: WatchConfiguration
    var bytes: [UInt8]

    /// The parts of the file, in order.
    var encoded: [[UInt8]] {
        Self.leadingParts(of: self.bytes) + [self.trailer]
    }

    /// The parts of a checkpoint of `bytes` that come before the header.
    static func leadingParts(of bytes: [UInt8]) -> [[UInt8]] {
        var bytesHeader = StateWriter(capacity: 16)
        bytesHeader.integer(UInt64(bytes.count))
        bytesHeader.integer(StateChecksum.of(bytes[...]))
        return [Self.magic + bytesHeader.bytes, bytes]
    }

    /// The framed header, which ends the file.
    var trailer: [UInt8] {
        var header = StateWriter(capacity: 256)
        header.integer(self.cursor.epoch.rawValue)
        header.integer(self.cursor.seq)
        header.byteString(self.digest.bytes)
        header.string(self.watch.path)
        header.string(self.watch.format.rawValue)
        header.strings(self.watch.key)
        header.optionalString(self.watch.sectionBy)
        header.strings(self.watch.ignore)
        header.integer(self.watch.delimiter.map { UInt64($0.rawValue) + 1 } ?? 0)
        header.integer(Self.code(of: self.watch.raggedRows))
        return StateWriter.frame(header.bytes)
    }

    /// Decodes a checkpoint of the watch called `name`.
    init(decoding file: [UInt8], name: String) throws(StateDamage.Reason) {
        guard file.starts(with: Self.magic) else { throw .malformed("not a checkpoint (no LSYNCCP1)", at: 0) }
        var reader = StateReader(file, offset: Self.magic.count)
        let bytes = Array(try reader.record())
        var header = StateReader(Array(try reader.record()))
        guard reader.isAtEnd else { throw .malformed("bytes after the header", at: reader.offset) }
        let epoch = Epoch(rawValue: try header.integer())
        let seq = try header.integer()
        guard let digest = ListDigest(bytes: Array(try header.byteString())) else { throw .malformed("a digest that is not 32 bytes", at: 0) }
        let path = try header.string()
        guard let format = WatchConfiguration.Format(rawValue: try header.string()) else { throw .malformed("an unknown format", at: 0) }
        let key = try header.strings()
        let sectionBy = try header.optionalString()
        let ignore = try header.strings()
        let delimiterCode = try header.integer()
        let delimiter = delimiterCode == 0 ? nil : UInt8(exactly: delimiterCode - 1).flatMap(CSVDelimiter.init(rawValue:))
        guard delimiterCode == 0 || delimiter != nil, let raggedRows = Self.raggedRows(code: try header.integer()), header.isAtEnd else {
            throw .malformed("an unknown delimiter or ragged_rows, or bytes after the header", at: 0)
        }
        self.cursor = Cursor(epoch: epoch, seq: seq)
        self.digest = digest
        self.watch = WatchConfiguration(
            name: name, path: path, format: format, key: key, sectionBy: sectionBy, ignore: ignore, delimiter: delimiter,
            raggedRows: raggedRows)
        self.bytes = bytes
    }

    init(version: WatchVersion, watch: WatchConfiguration) {
        self.cursor = version.cursor
        self.digest = version.digest
        self.watch = watch
        self.bytes = version.list.bytes
    }

    private static let raggedRowPolicies: [RaggedRowPolicy] = [.error, .pad, .truncate]

    private static func code(of policy: RaggedRowPolicy) -> UInt64 {
        UInt64(self.raggedRowPolicies.firstIndex(of: policy) ?? 0)
    }

    private static func raggedRows(code: UInt64) -> RaggedRowPolicy? {
        code < UInt64(self.raggedRowPolicies.count) ? self.raggedRowPolicies[Int(code)] : nil
    }
}
