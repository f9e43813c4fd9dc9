import ListSyncProtocol
import NIOCore
import Synchronization

/// The snapshot of one version, encoded once and shared by every subscriber that sends it.
///
/// Chunks are encoded on demand — by the first subscriber that gets that far — and kept until
/// every subscriber reading the snapshot (each an ``EncodedSnapshotReader``) has taken them, so
/// subscribers that read it at once write the same `ByteBuffer`s: a snapshot costs one encoding
/// and one copy of its lines however many subscribers ask for it together. A chunk that every
/// reader has taken is released (issue 19 item 3: a 1M-row list's snapshot held whole was 1.4×
/// its file at the daemon's peak while one subscriber read it); what the snapshot holds is the
/// window between its slowest and its fastest reader. A subscriber can join only while the first
/// chunk is kept (``attachReader()``); later ones get a new encoding of the same version. The
/// watch's ``WatchFeed`` holds the snapshot weakly and each reader strongly, so it is released
/// when its last reader is done. Its bytes count against the client-buffer budget
/// (``BufferBudget``) once, from their encoding until the snapshot is released, as they did when
/// every chunk was kept: a chunk a reader took may still wait in its connection's outbound buffer,
/// which the budget then still covers, and the budget's choice of connections to cut off (those
/// holding stale snapshots) stays what it was.
final class EncodedSnapshot: Sendable {
    /// The version the snapshot shows.
    let version: WatchVersion
    /// The feed of the watch, to tell whether ``version`` is still its current one.
    private let feed: WatchFeed

    private struct State {
        var encoder: SnapshotEncoder
        /// Every chunk encoded so far, by index; `nil` once every reader has taken it.
        var chunks: [ByteBuffer?] = []
        /// The chunks before this index are released.
        var released = 0
        /// The index of the next chunk each reader takes, by reader.
        var readers: [Int: Int] = [:]
        var nextReader = 0
        /// The bytes encoded so far, charged to the budget until the snapshot is released.
        var bytes = 0
        /// The bytes of the chunks kept (encoded, not yet taken by every reader).
        var heldBytes = 0
        /// The bytes encoded since the version's mapped pages were last let go.
        var encodedSinceRelease = 0

        /// Releases the chunks that no reader will take again (all of them when no reader is
        /// left); returns their bytes.
        @discardableResult
        mutating func releaseTaken() -> Int {
            let needed = min(self.readers.values.min() ?? self.chunks.count, self.chunks.count)
            var freed = 0
            while self.released < needed {
                freed += self.chunks[self.released]?.readableBytes ?? 0
                self.chunks[self.released] = nil
                self.released += 1
            }
            self.heldBytes -= freed
            return freed
        }
    }

    private let state: Mutex<State>
    /// How many bytes of lines are encoded between two releases of the version's mapped pages.
    static let pageReleaseInterval = 8 << 20
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

    /// The bytes encoded so far, released chunks included: what the snapshot counts in the
    /// client-buffer budget, and what cutting off a connection that alone reads it may release.
    var bytes: Int {
        self.state.withLock { $0.bytes }
    }

    /// The bytes of the chunks held now: encoded, not yet taken by every reader.
    var heldBytes: Int {
        self.state.withLock { $0.heldBytes }
    }

    /// Whether the watch has a newer version: only subscribers that started before it still read
    /// this snapshot, and cutting them off releases it.
    var isStale: Bool {
        self.feed.currentVersion !== self.version
    }

    deinit {
        self.budget?.release(self.state.withLock { $0.bytes })
    }

    /// A new reader from the first chunk; `nil` once the first chunk was released (every reader
    /// so far took it): a subscriber then needs a new snapshot of the version.
    ///
    /// - Complexity: O(1).
    func attachReader() -> EncodedSnapshotReader? {
        let id = self.state.withLock { state -> Int? in
            guard state.released == 0 else { return nil }
            let id = state.nextReader
            state.nextReader += 1
            state.readers[id] = 0
            return id
        }
        return id.map { EncodedSnapshotReader(snapshot: self, id: $0) }
    }

    /// Chunk `index`'s line (`\n` included) for reader `reader`, encoded now if no reader needed
    /// it before; `nil` past the last chunk. The reader takes the chunks in order: those before
    /// `index` are no longer its to ask for, and are released once no other reader needs them.
    ///
    /// - Complexity: O(size of the chunks encoded now); O(1) for a chunk already encoded.
    func chunk(_ index: Int, reader: Int) -> ByteBuffer? {
        let (chunk, encoded, releasesPages) = self.state.withLock { state -> (ByteBuffer?, Int, Bool) in
            // A released chunk reads as the snapshot's end: a reader must never ask for one.
            assert(index >= state.released && state.readers[reader].map { index >= $0 } ?? true, "chunk \(index) asked for after it was taken or released")
            var encoded = 0
            while state.chunks.count <= index, let line = state.encoder.nextChunk() {
                state.chunks.append(ByteBuffer(bytes: line))
                encoded += line.count
            }
            state.bytes += encoded
            state.heldBytes += encoded
            let chunk = index < state.chunks.count ? state.chunks[index] : nil
            if state.readers[reader] != nil {
                state.readers[reader] = index + 1
            }
            state.releaseTaken()
            // Issue 19: the pages of a version mapped from the state files count while read;
            // let go of them every few MiB of lines and at the end (they are read back if needed).
            state.encodedSinceRelease += encoded
            let releasesPages = encoded > 0 && (state.encodedSinceRelease >= Self.pageReleaseInterval || state.chunks.count <= index)
            if releasesPages { state.encodedSinceRelease = 0 }
            return (chunk, encoded, releasesPages)
        }
        if releasesPages {
            self.version.list.fileBytes.releaseMappedPages()
        }
        // Outside the lock: charging may cut connections off.
        if encoded > 0 {
            self.budget?.charge(encoded)
        }
        return chunk
    }

    /// Reader `reader` takes no more chunks: what only it still needed is released.
    func detachReader(_ reader: Int) {
        self.state.withLock { state in
            state.readers[reader] = nil
            state.releaseTaken()
        }
    }
}
