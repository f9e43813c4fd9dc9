import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A products list in memory and its versions as the daemon publishes them: snapshots through
/// the real snapshot encoder and client, changesets from ListDiff with their digests.
struct SinkVersions {
    static let watch = "products"
    static let epoch = Epoch(rawValue: 0x5eed)

    /// The row lines, without the header.
    var lines: [String]

    /// `rows` rows.
    init(rows: Int) {
        self.lines = (0..<rows).map { "SKU\($0),item number \($0),\($0 % 997).0,category \($0 % 50)" }
    }

    /// The list as the daemon reads it (CSV, keyed by `sku`).
    func parsed() throws -> ParsedList {
        var text = "sku,name,price,category\n"
        text.reserveCapacity(self.lines.count * 48)
        for line in self.lines {
            text += line
            text += "\n"
        }
        return try ListReader(options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])).read(bytes: Array(text.utf8))
    }

    /// A mirror that applied the snapshot of `list` at `seq`, chunk by chunk as a client does.
    static func mirror(of list: ParsedList, seq: UInt64) throws -> MirroredList {
        var encoder = SnapshotEncoder(
            watch: self.watch, cursor: Cursor(epoch: self.epoch, seq: seq), list: list, digest: ListDigest(of: list))
        var mirror = MirroredList(watch: self.watch)
        while let line = encoder.nextChunk() {
            guard case .snapshot(let chunk) = try MessageParser.serverMessage(ofLine: line.dropLast()) else {
                throw SinkBenchmark.Failure(description: "not a snapshot line")
            }
            try mirror.apply(chunk)
        }
        return mirror
    }

    /// The changeset from `old` to `new` that publishes `seq`.
    static func changeset(from old: ParsedList, to new: ParsedList, seq: UInt64) -> ChangesetMessage {
        let stages = ChangesetEncoder.stages(of: StagedChangeset(source: old.records, target: new.records), source: old, target: new)
        return ChangesetMessage(
            watch: self.watch, cursor: Cursor(epoch: self.epoch, seq: seq), prevSeq: seq - 1, stages: stages,
            digest: ListDigest(of: new), schema: SchemaUpdate(from: old, to: new))
    }
}
