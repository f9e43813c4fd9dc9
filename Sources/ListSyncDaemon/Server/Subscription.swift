import ListSyncProtocol
import NIOCore

/// One watch a connection is subscribed to: a position in the watch's ``WatchFeed``, plus the
/// snapshot being sent, if any.
///
/// A subscription does not queue: ``nextLine(allocator:)`` asks the feed for what follows its
/// position whenever the connection can write, so falling behind costs nothing but the gap — and
/// when the gap left the feed's history, the feed says so and a fresh snapshot resynchronises it.
struct Subscription {
    /// What the subscription is sending.
    enum Phase {
        /// Changesets and statuses from the feed, from `position`.
        case streaming(WatchFeed.Position)
        /// A snapshot, chunk by chunk (at subscribe, or to resynchronise after falling out of the
        /// feed's history); streaming continues from `then` once the last chunk is out.
        case sendingSnapshot(SnapshotEncoder, then: WatchFeed.Position)
    }

    let feed: WatchFeed
    private(set) var phase: Phase
    private let chunkSize: Int

    /// A subscription to `feed` that starts as the feed decided.
    init(feed: WatchFeed, start: SubscriptionStart, version: WatchVersion?, chunkSize: Int) {
        self.feed = feed
        self.chunkSize = chunkSize
        switch (start, version) {
        case (.resume(let firstSeq), _):
            self.phase = .streaming(WatchFeed.Position(nextSeq: firstSeq))
        case (.snapshot, let version?):
            self.phase = Self.snapshot(of: version, feed: feed, chunkSize: chunkSize, statusGeneration: nil)
        case (.snapshot, nil), (.awaitingFirstVersion, _):
            // Version 0 is not in any history: the feed answers with a snapshot once it exists.
            self.phase = .streaming(WatchFeed.Position(nextSeq: 0))
        }
    }

    /// The next line to write, and whether the subscription ends after it (the watch was
    /// removed); `nil` when there is nothing to send now.
    mutating func nextLine(allocator: ByteBufferAllocator) -> (line: ByteBuffer, ends: Bool)? {
        switch self.phase {
        case .sendingSnapshot(var encoder, let then):
            guard let chunk = encoder.nextChunk() else {
                self.phase = .streaming(then)
                return self.nextLine(allocator: allocator)
            }
            self.phase = encoder.isFinished ? .streaming(then) : .sendingSnapshot(encoder, then: then)
            return (allocator.buffer(bytes: chunk), false)
        case .streaming(var position):
            switch self.feed.next(after: position) {
            case .changeset(let line):
                position.nextSeq += 1
                self.phase = .streaming(position)
                return (line, false)
            case .snapshot(let version):
                self.phase = Self.snapshot(of: version, feed: self.feed, chunkSize: self.chunkSize, statusGeneration: position.statusGeneration)
                return self.nextLine(allocator: allocator)
            case .status(let line, let generation, let removed):
                position.statusGeneration = generation
                self.phase = .streaming(position)
                return (line, removed)
            case .upToDate:
                return nil
            }
        }
    }

    private static func snapshot(of version: WatchVersion, feed: WatchFeed, chunkSize: Int, statusGeneration: UInt64?) -> Phase {
        let encoder = SnapshotEncoder(
            watch: feed.name, cursor: version.cursor, list: version.list,
            digest: version.digest, targetChunkSize: chunkSize)
        return .sendingSnapshot(encoder, then: WatchFeed.Position(nextSeq: version.seq + 1, statusGeneration: statusGeneration))
    }
}
