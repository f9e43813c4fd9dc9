import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// Versions of a list as the daemon would publish them: snapshots and changesets made with the
/// real encoders (`SnapshotEncoder`, `ListDiff` + `ChangesetEncoder`, `ListDigest`) and sent
/// through the wire encoding and back.
package enum Versions {
    package static let epoch = Epoch(rawValue: 0x5f0c_2a4e_19b7_d3a8)
    package static let watch = "products"

    /// A JSON list read with `key` (by default `id`) as key, sectioned by `group` when asked.
    package static func read(_ json: String, sectioned: Bool = false, key: [String] = ["id"]) throws -> ParsedList {
        try ListReader(options: ReadOptions(format: .json, key: key, sectionBy: sectioned ? "group" : nil)).read(bytes: Array(json.utf8))
    }

    /// JSON records `{"id":…,"group":…,"v":…}` from (id, group, value) triples.
    package static func json(_ records: [(Int, String, Int)]) -> String {
        "[" + records.map { #"{"id":\#($0.0),"group":"\#($0.1)","v":\#($0.2)}"# }.joined(separator: ",") + "]"
    }

    /// The snapshot of `list` at `seq`, cut into small chunks, as the client decodes it, with
    /// the `digestVersion` digest.
    package static func snapshot(_ list: ParsedList, seq: UInt64, chunkSize: Int = 40, digestVersion: DigestVersion = .v1) throws -> [SnapshotChunk] {
        var encoder = SnapshotEncoder(
            watch: watch, cursor: Cursor(epoch: epoch, seq: seq), list: list,
            digest: ListDigest(of: list, version: digestVersion), targetChunkSize: chunkSize)
        var chunks: [SnapshotChunk] = []
        while let line = encoder.nextChunk() {
            guard case .snapshot(let chunk) = try MessageParser.serverMessage(ofLine: line.dropLast()) else {
                throw TestFailure("not a snapshot line")
            }
            chunks.append(chunk)
        }
        return chunks
    }

    /// The changeset from `old` to `new` that publishes `seq`, through the wire encoding, with
    /// the `digestVersion` digest of `new` computed from scratch.
    package static func changeset(from old: ParsedList, to new: ParsedList, seq: UInt64, digestVersion: DigestVersion = .v1) throws -> ChangesetMessage {
        let stages =
            new.isSectioned
            ? ChangesetEncoder.stages(of: StagedChangeset(source: old.sections, target: new.sections), source: old, target: new)
            : ChangesetEncoder.stages(of: StagedChangeset(source: old.records, target: new.records), source: old, target: new)
        let message = ChangesetMessage(
            watch: watch, cursor: Cursor(epoch: epoch, seq: seq), prevSeq: seq - 1, stages: stages,
            digest: ListDigest(of: new, version: digestVersion), schema: SchemaUpdate(from: old, to: new))
        guard case .changeset(let decoded) = try MessageParser.serverMessage(ofLine: ServerMessage.changeset(message).encoded().dropLast())
        else {
            throw TestFailure("not a changeset line")
        }
        return decoded
    }

    /// A mirror that applied the snapshot of `list` at `seq`, checking `digestVersion` digests.
    package static func mirror(of list: ParsedList, seq: UInt64, digestVersion: DigestVersion = .v1) throws -> MirroredList {
        var mirror = MirroredList(watch: watch)
        mirror.useDigestVersion(digestVersion)
        for chunk in try snapshot(list, seq: seq, digestVersion: digestVersion) {
            try mirror.apply(chunk)
        }
        return mirror
    }
}
