/// How a subscriber hands a snapshot to its consumer: assembled (the default), or chunk by chunk
/// as it arrives, so that a consumer can write a large list out while it streams instead of
/// holding it whole.
public enum SnapshotDelivery: Sendable, Hashable {
    /// Only the complete, verified snapshot (``MirrorUpdate/Event/snapshot(cursor:)``); the
    /// mirror holds the list.
    case assembled
    /// Each chunk as it arrives (``MirrorUpdate/Event/snapshotChunk(_:)``), then the verified
    /// snapshot; the mirror holds the list (once: the chunks' records are not kept twice).
    case chunks
    /// Each chunk as it arrives, then the verified snapshot; the mirror keeps only the records'
    /// hashes to check the digest (16 bytes a record) and, once verified, only the snapshot's
    /// cursor (``MirroredList/hasList`` is false): for a consumer that keeps the list itself,
    /// such as a file written as the chunks arrive.
    case chunksWithoutList
}
