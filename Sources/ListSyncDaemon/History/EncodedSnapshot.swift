import ListSyncProtocol
import NIOCore
import Synchronization

/// The snapshot of one version, encoded once and shared by every subscriber that sends it.
///
/// Chunks are encoded on demand — by the first subscriber that gets that far — and kept, so every
/// other subscriber writes the same `ByteBuffer`s: a snapshot costs one encoding and one copy of
/// its lines however many subscribers ask for it at once. The watch's ``WatchFeed`` holds it
/// weakly and each ``Subscription`` sending it strongly, so it is released when its last reader is
/// done (a subscriber to the same version after that encodes it again). Its bytes count once
/// against the client-buffer budget (``BufferBudget``) while it lives.
final class EncodedSnapshot: Sendable {
    /// The version the snapshot shows.
    let version: WatchVersion
    /// The feed of the watch, to tell whether ``version`` is still its current one.
    private let feed: WatchFeed

    private struct State {
        var encoder: SnapshotEncoder
        var chunks: [ByteBuffer] = []
        /// The bytes of ``chunks``, charged to the budget.
        var bytes = 0
    }

    private let state: Mutex<State>
    private let budget: (any BufferBudget)?

    /// The snapshot of `version` of `feed`'s watch, with `digest` (the version's, in the
    /// subscribers' digest version), cut at `chunkSize`; nothing is encoded yet.
    init(feed: WatchFeed, version: WatchVersion, digest: ListDigest, chunkSize: Int, budget: (any BufferBudget)?) {
        self.version = version
        self.feed = feed
        self.budget = budget
        self.state = Mutex(
            State(
                encoder: SnapshotEncoder(
                    watch: feed.name, cursor: version.cursor, list: version.list, digest: digest,
                    targetChunkSize: chunkSize)))
    }

    /// The bytes encoded so far.
    var bytes: Int {
        self.state.withLock { $0.bytes }
    }

    /// Whether the watch has a newer version: only subscribers that started before it still read
    /// this snapshot, and cutting them off releases it.
    var isStale: Bool {
        self.feed.currentVersion !== self.version
    }

    deinit {
        self.budget?.release(self.state.withLock { $0.bytes })
    }

    /// Chunk `index`'s line (`\n` included), encoded now if no subscriber needed it before;
    /// `nil` past the last chunk.
    ///
    /// - Complexity: O(size of the chunks encoded now); O(1) for a chunk already encoded.
    func chunk(_ index: Int) -> ByteBuffer? {
        let (chunk, encoded) = self.state.withLock { state -> (ByteBuffer?, Int) in
            var encoded = 0
            while state.chunks.count <= index, let line = state.encoder.nextChunk() {
                state.chunks.append(ByteBuffer(bytes: line))
                encoded += line.count
            }
            state.bytes += encoded
            return (index < state.chunks.count ? state.chunks[index] : nil, encoded)
        }
        // Outside the lock: charging may cut connections off.
        if encoded > 0 {
            self.budget?.charge(encoded)
        }
        return chunk
    }
}
