import DurableFiles
import ListSyncProtocol
import NIOCore

/// One watch a connection is subscribed to: a position in the watch's ``WatchFeed``, plus the
/// snapshot being sent, if any.
///
/// A subscription does not queue: ``nextLine()`` asks the feed for what follows its
/// position whenever the connection can write, so falling behind costs nothing but the gap — and
/// when the gap left the feed's history, the feed says so and a fresh snapshot resynchronises it.
struct Subscription {
    /// What the subscription is sending.
    enum Phase {
        /// Changesets and statuses from the feed, from `position`.
        case streaming(WatchFeed.Position)
        /// A snapshot, chunk by chunk from `nextChunk` (at subscribe, or to resynchronise after
        /// falling out of the feed's history); streaming continues from `then` once the last
        /// chunk is out. The snapshot is shared with the other subscriptions sending it.
        case sendingSnapshot(EncodedSnapshotReader, nextChunk: Int, then: WatchFeed.Position)
        /// The parts of a changeset too large for one line (protocol version 2), then streaming
        /// from `then`.
        case sendingParts(ChangesetPartsInFlight, then: WatchFeed.Position)
        /// Holding its place until `version`'s version 1 digest is computed (off the event loop,
        /// see ``awaitedV1Digest``), then going on as `then` says: nothing after it overtakes it.
        case awaitingV1Digest(WatchVersion, then: AfterV1Digest)
    }

    /// What a subscription waiting for a version 1 digest does once it is there.
    enum AfterV1Digest {
        /// Send the snapshot of the version, then stream from the version after it, with the
        /// status generation last sent.
        case snapshot(statusGeneration: UInt64?)
        /// Ask the feed again from this position (whose changeset carries the digest).
        case streaming(WatchFeed.Position)
    }

    let feed: WatchFeed
    private(set) var phase: Phase
    /// The digest the connection's protocol version uses, in changesets and snapshots.
    let digestVersion: DigestVersion
    private let chunkSize: Int
    private let budget: (any BufferBudget)?

    /// The snapshot being sent, if one is.
    var snapshot: EncodedSnapshot? {
        if case .sendingSnapshot(let reader, _, _) = self.phase { return reader.snapshot }
        return nil
    }

    /// The version whose version 1 digest the subscription waits for, if it does: the connection
    /// has it computed on the thread pool (``WatchFeed/computeV1Digest(of:)``), then writes again.
    var awaitedV1Digest: WatchVersion? {
        if case .awaitingV1Digest(let version, _) = self.phase { return version }
        return nil
    }

    /// A subscription to `feed` that starts as the feed decided.
    ///
    /// - Parameters:
    ///   - chunkSize: The size at which snapshot chunks are cut.
    ///   - budget: Where the snapshots' bytes are counted.
    ///   - digestVersion: The digest the connection's protocol version uses.
    init(
        feed: WatchFeed, start: SubscriptionStart, version: WatchVersion?, chunkSize: Int, budget: (any BufferBudget)?,
        digestVersion: DigestVersion = .v2
    ) {
        self.feed = feed
        self.digestVersion = digestVersion
        self.chunkSize = chunkSize
        self.budget = budget
        // Without a version yet, wait for the first: version 0 is not in any history, so the feed
        // answers with a snapshot once it exists.
        self.phase = .streaming(WatchFeed.Position(nextSeq: 0))
        switch (start, version) {
        case (.resume(let firstSeq), _):
            self.phase = .streaming(WatchFeed.Position(nextSeq: firstSeq))
        case (.snapshot, let version?):
            self.phase = self.snapshot(of: version, statusGeneration: nil)
        case (.snapshot, nil), (.awaitingFirstVersion, _):
            break
        }
    }

    /// The next line to write, whether the subscription ends after it (the watch was removed),
    /// and whether the line is this subscription's own copy (a changeset line or a part of one),
    /// which counts against the client-buffer budget until written; `nil` when there is nothing
    /// to send now.
    mutating func nextLine() -> (line: ByteBuffer, ends: Bool, isOwnCopy: Bool)? {
        switch self.phase {
        case .awaitingV1Digest(let version, let then):
            guard version.computedV1Digest != nil else { return nil }
            switch then {
            case .snapshot(let statusGeneration): self.phase = self.snapshot(of: version, statusGeneration: statusGeneration)
            case .streaming(let position): self.phase = .streaming(position)
            }
            return self.nextLine()
        case .sendingSnapshot(let reader, let index, let then):
            guard let chunk = reader.chunk(index) else {
                self.phase = .streaming(then)
                return self.nextLine()
            }
            self.phase = .sendingSnapshot(reader, nextChunk: index + 1, then: then)
            return (chunk, false, false)
        case .sendingParts(let parts, let then):
            guard let part = parts.nextPart() else {
                self.phase = .streaming(then)
                return self.nextLine()
            }
            return (part, false, true)
        case .streaming(var position):
            switch self.feed.next(after: position, digestVersion: self.digestVersion) {
            case .changeset(let line):
                position.nextSeq += 1
                self.phase = .streaming(position)
                return self.inParts(line, then: position) ?? (Self.copy(of: line), false, true)
            case .archivedChangeset(let line):
                position.nextSeq += 1
                self.phase = .streaming(position)
                // A line that goes whole is written from a copy of its own, counted until written.
                return self.inParts(FileBytes(line), then: position) ?? (ByteBuffer(bytes: line), false, true)
            case .snapshot(let version):
                self.phase = self.snapshot(of: version, statusGeneration: position.statusGeneration)
                return self.nextLine()
            case .awaitingV1Digest(let version):
                self.phase = .awaitingV1Digest(version, then: .streaming(position))
                return nil
            case .status(let line, let generation, let removed):
                position.statusGeneration = generation
                self.phase = .streaming(position)
                return (line, removed, false)
            case .upToDate:
                return nil
            }
        }
    }

    /// A changeset line over the chunk size to a version 2 connection: its first part, then the
    /// rest from ``Phase/sendingParts(_:then:)``; `nil` when the line goes whole (version 1, or
    /// within the bound).
    private mutating func inParts(_ line: FileBytes, then: WatchFeed.Position) -> (line: ByteBuffer, ends: Bool, isOwnCopy: Bool)? {
        guard self.digestVersion == .v2, let parts = ChangesetPartsInFlight(line: line, bound: self.chunkSize, budget: self.budget) else {
            return nil
        }
        self.phase = .sendingParts(parts, then: then)
        return self.nextLine()
    }

    /// A copy of `line`, the history's, for a connection that writes it whole (a version 1
    /// client, or within the part bound); a long line's mapped pages are let go of once copied.
    private static func copy(of line: FileBytes) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(line.count)
        line.forEachStretch { _, stretch in buffer.writeBytes(stretch) }
        return buffer
    }

    /// Sending the feed's shared snapshot of `version`, then streaming what follows it; first
    /// waiting for the version's version 1 digest if the connection needs it and it is not computed.
    private func snapshot(of version: WatchVersion, statusGeneration: UInt64?) -> Phase {
        guard let snapshot = self.feed.snapshot(of: version, digestVersion: self.digestVersion, chunkSize: self.chunkSize, budget: self.budget) else {
            return .awaitingV1Digest(version, then: .snapshot(statusGeneration: statusGeneration))
        }
        return .sendingSnapshot(snapshot, nextChunk: 0, then: WatchFeed.Position(nextSeq: version.seq + 1, statusGeneration: statusGeneration))
    }
}
