import ListSyncProtocol

/// The last published version of a watch as the builds before the checkpoint slots kept it, in
/// `<state>/<watch>/checkpoint` (magic `LSYNCCP1`), replaced by rename at each version: read
/// only, so that a daemon upgraded over such state keeps its history
/// (``WatchStateStore/restore(for:)`` converts it into a slot, then removes it).
///
/// Written by every build up to 6d3930b (the state format changed in db7bebd, November 2026).
/// Delete this file, and its one use in ``WatchStateStore``, once no deployment can still hold
/// state written by those builds (any daemon started once since converts it).
///
/// On disk: the magic, then two framed records (see ``StateWriter/frame(_:)``): the file's
/// bytes, then the header (epoch, seq, digest, then the settings as ``Checkpoint`` lays them
/// out). Its log led exactly to it, or one changeset further after a crash between appending a
/// changeset and replacing the checkpoint: that changeset was never sent.
struct LegacyCheckpoint: Sendable {
    static let fileName = "checkpoint"
    static let magic = Array("LSYNCCP1".utf8)

    var cursor: Cursor
    var digest: ListDigest
    /// The watch's settings the bytes were read with (its name is the directory's).
    var watch: WatchConfiguration
    var bytes: [UInt8]

    /// Decodes a legacy checkpoint of the watch called `name`.
    init(decoding file: [UInt8], name: String) throws(StateDamage.Reason) {
        guard file.starts(with: Self.magic) else { throw .malformed("not a checkpoint (no LSYNCCP1)", at: 0) }
        var reader = StateReader(file, offset: Self.magic.count)
        self.bytes = Array(try reader.record())
        let headerStart = reader.offset
        var header = StateReader(Array(try reader.record()))
        guard reader.isAtEnd else { throw .malformed("bytes after the header", at: reader.offset) }
        self.cursor = Cursor(epoch: Epoch(rawValue: try header.integer()), seq: try header.integer())
        guard let digest = ListDigest(bytes: Array(try header.byteString())) else { throw .malformed("a digest that is not 32 bytes", at: headerStart) }
        self.digest = digest
        self.watch = try Checkpoint.watch(from: &header, name: name, at: headerStart)
    }
}
