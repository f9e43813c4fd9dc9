import ListFormats
import ListSyncClient
import ListSyncProtocol

/// The JSON lines `listsync exec` feeds its command (and `listsync subscribe --format ndjson`
/// prints, but for a snapshot, which it prints in chunks: ``MirroredList/writeSnapshotLines(targetChunkSize:_:)``):
/// each event as the protocol message that carries it (docs/PROTOCOL.md), so a program that
/// reads the daemon's socket reads these too.
enum UpdateLines {
    /// The line for an update: a `changeset` message (stages in the changeset encoding, with the
    /// cursor and digest), a `status` message, or for a snapshot the whole list as one `snapshot`
    /// message (chunk 0 and last, fresh, with the digest); `nil` for connection events.
    static func line(for update: MirrorUpdate) -> [UInt8]? {
        switch update.event {
        case .changeset(let changeset):
            return ServerMessage.changeset(changeset).encoded()
        case .status(let status):
            return ServerMessage.status(status).encoded()
        case .snapshot:
            return self.snapshotLine(of: update.mirror)
        case .subscribed, .resyncing, .disconnected, .snapshotChunk:
            return nil
        }
    }

    /// The mirror's list as one `snapshot` message; `nil` when it holds no list.
    static func snapshotLine(of mirror: MirroredList) -> [UInt8]? {
        mirror.snapshotLine
    }
}
