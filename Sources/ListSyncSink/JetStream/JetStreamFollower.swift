import ListSyncClient
import ListSyncProtocol
import NATSTransport

/// Follows a watch's subject of a JetStream stream with an ordered, ephemeral consumer and keeps
/// a mirror of the list from it alone: no daemon involved. Every snapshot and changeset is
/// checked as over the socket (sequence, stages, digest).
public struct JetStreamFollower {
    /// The NATS connection.
    public var connection: NATSConnection
    /// The stream.
    public var stream: String
    /// The watch's subject.
    public var subject: String

    /// A follower of `subject` in `stream`.
    public init(connection: NATSConnection, stream: String, subject: String) {
        self.connection = connection
        self.stream = stream
        self.subject = subject
    }

    /// What following the stream produced.
    public enum Update: Sendable {
        /// A complete snapshot replaced the mirror's list; `layout`: how the watch reads its
        /// file, as the snapshot's headers say (`nil` from a sink older than those headers).
        case snapshot(MirroredList, streamSequence: UInt64, layout: JetStreamWatchLayout?)
        /// One chunk of a snapshot, as it arrives, before the mirror takes it (only when
        /// following with a ``SnapshotDelivery`` other than `.assembled`): write its records out
        /// as they come. The snapshot is complete and verified only at its ``snapshot(_:streamSequence:layout:)``;
        /// a ``skipped(_:streamSequence:)`` or a ``caughtUp(_:)`` before it means it will not be.
        /// `mirror` is the mirror as it was before the chunk.
        case snapshotChunk(SnapshotChunk, MirroredList, streamSequence: UInt64)
        /// A changeset was applied to the mirror.
        case changeset(ChangesetMessage, MirroredList, streamSequence: UInt64)
        /// A message that could not be used (said why); the mirror stayed as it was.
        case skipped(String, streamSequence: UInt64)
        /// The mirror has every message the subject had when following started (or when it
        /// last ran out of messages).
        case caughtUp(MirroredList)
    }

    /// Follows the subject from the message after `sequence`, starting with `mirror` (a
    /// restored list, or an empty mirror), and hands every update to `body` until `body`
    /// returns `false` or the task is cancelled.
    ///
    /// With `sequence` 0 it starts at the latest complete snapshot the last message names
    /// (`ListSync-Snapshot`), else at the stream's first message; a mirror that holds only a
    /// cursor (``MirroredList/init(watch:following:)``, `exec --state`, `subscribe --since`)
    /// starts at the stream's first message and follows the changesets after its cursor by
    /// their sequence numbers, as over the socket. Snapshots and changesets at or before the
    /// mirror's cursor (same epoch) are passed over; a changeset before any snapshot or cursor
    /// is passed over too.
    ///
    /// `delivery` says how snapshots are handed over, as ``ClientConfiguration/snapshotDelivery``
    /// does over the socket: with `.chunks` or `.chunksWithoutList` each chunk comes first as a
    /// ``Update/snapshotChunk(_:_:streamSequence:)``; with `.chunksWithoutList` the mirror keeps only
    /// the records' hashes and, once verified, the snapshot's cursor.
    ///
    /// - Throws: ``JetStreamMissingStream`` when the stream does not exist; ``NATSError``.
    public func follow(
        from mirror: MirroredList, after sequence: UInt64, delivery: SnapshotDelivery = .assembled, _ body: (Update) async throws -> Bool
    ) async throws {
        var mirror = mirror
        let (connection, stream, subject) = (self.connection, self.stream, self.subject)
        let last: NATSMessage?
        do {
            last = try await JetStreamBlocking.run { try connection.lastMessage(in: stream, subject: subject) }
        } catch let error as NATSError where error.isStreamNotFound {
            throw JetStreamMissingStream(stream: stream, servers: connection.servers)
        }
        let end = last?.streamSequence ?? 0
        var sequence = sequence
        // Without a place of its own, start at the latest complete snapshot the stream names;
        // a mirror that holds only a cursor reads from the stream's first message instead, to
        // find the changesets after its cursor.
        let followsPosition = mirror.cursor != nil && !mirror.hasList
        if sequence == 0, !followsPosition, let last, let latest = JetStreamEnvelope(headers: last.headers)?.latestSnapshot(at: last.streamSequence), latest > 0 {
            sequence = latest - 1
        }
        if end <= sequence {
            guard try await body(.caughtUp(mirror)) else { return }
        }
        let start = sequence + 1
        let subscription = try await JetStreamBlocking.run {
            try NATSPulledSubscription(connection: connection, stream: stream, subject: subject, from: start)
        }
        do {
            try await self.read(subscription, into: &mirror, endingAt: end, delivery: delivery, body)
        } catch {
            try? await JetStreamBlocking.run { subscription.close() }
            throw error
        }
        // Closing deletes the consumer on the server: a request, off the cooperative pool.
        try await JetStreamBlocking.run { subscription.close() }
    }

    /// Reads `subscription` into `mirror` until `body` returns `false` or the task is cancelled;
    /// `end` is the subject's last sequence when following started.
    private func read(
        _ subscription: NATSPulledSubscription, into mirror: inout MirroredList, endingAt end: UInt64, delivery: SnapshotDelivery,
        _ body: (Update) async throws -> Bool
    ) async throws {
        var assembly = JetStreamLineAssembly()
        var parts = ChangesetPartAssembly(maximumBytes: assembly.limit)
        while !Task.isCancelled {
            guard let message = try await JetStreamBlocking.run({ try subscription.next(timeoutMilliseconds: 200) }) else { continue }
            let place = message.streamSequence
            guard let envelope = JetStreamEnvelope(headers: message.headers) else {
                guard try await body(.skipped("message \(place) is not a ListSync message", streamSequence: place)) else { return }
                continue
            }
            if let (complete, line) = assembly.add(message.payload, envelope: envelope) {
                for update in Self.apply(line, envelope: complete, to: &mirror, parts: &parts, at: place, delivery: delivery) {
                    guard try await body(update) else { return }
                }
            } else if let dropped = assembly.takeOversized() {
                let reason = "message \(place) (\(dropped.kind.rawValue) \(dropped.cursor), part \(dropped.part) of \(dropped.parts)) makes a line longer than \(assembly.limit) bytes: dropped"
                guard try await body(.skipped(reason, streamSequence: place)) else { return }
            }
            // Caught up at the last message (even one part of a line, or one chunk of a snapshot,
            // whose publisher died), or later at a message that ends a changeset or a snapshot.
            if message.pending == 0, place >= end, (!assembly.isAssembling && envelope.lastChunk) || place == end {
                guard try await body(.caughtUp(mirror)) else { return }
            }
        }
    }

    /// How the watch reads its file, as the subject's last message says; `nil` when the subject
    /// has no message, or its last was published by a sink older than the layout headers.
    ///
    /// - Throws: ``JetStreamMissingStream`` when the stream does not exist; ``NATSError``.
    public func layout() async throws -> JetStreamWatchLayout? {
        let (connection, stream, subject) = (self.connection, self.stream, self.subject)
        do {
            let last = try await JetStreamBlocking.run { try connection.lastMessage(in: stream, subject: subject) }
            return last.flatMap { JetStreamWatchLayout(headers: $0.headers) }
        } catch let error as NATSError where error.isStreamNotFound {
            throw JetStreamMissingStream(stream: stream, servers: connection.servers)
        }
    }

    /// Applies one complete line to `mirror`, checked with the digest of the protocol version
    /// its message names (`ListSync-Protocol`: a stream holds version 1 lines, version 2 lines,
    /// or both, one after the other); a changeset's parts (version 2) are held in `parts` until
    /// the last one, then applied whole. The updates to report (none for a line passed over or a
    /// part held): a snapshot's chunk comes first when `delivery` hands chunks over.
    static func apply(
        _ line: [UInt8], envelope: JetStreamEnvelope, to mirror: inout MirroredList, parts: inout ChangesetPartAssembly, at place: UInt64,
        delivery: SnapshotDelivery = .assembled
    ) -> [Update] {
        let message: ServerMessage?
        do {
            message = try MessageParser.serverMessage(ofLine: line.last == 10 ? line.dropLast() : line[...])
        } catch {
            parts.reset()
            return [.skipped("message \(place) (\(envelope.kind.rawValue) \(envelope.cursor)) does not decode: \(error)", streamSequence: place)]
        }
        // Anything but the next part of the changeset held ends it: its publisher died mid-way
        // (a sink taking it up again starts with a part 0, or a whole line).
        let continuesHeld: Bool
        if case .changesetPart(let part) = message { continuesHeld = part.part > 0 } else { continuesHeld = false }
        if !continuesHeld { parts.reset() }
        if let current = mirror.cursor, current.epoch == envelope.cursor.epoch, envelope.cursor.seq <= current.seq {
            return []
        }
        guard ProtocolVersion.supported.contains(envelope.protocolVersion) else {
            return [.skipped("message \(place) (\(envelope.kind.rawValue) \(envelope.cursor)) is at protocol version \(envelope.protocolVersion), which this reader does not speak", streamSequence: place)]
        }
        mirror.useDigestVersion(DigestVersion(protocol: envelope.protocolVersion))
        do {
            switch message {
            case .snapshot(let chunk):
                // The chunk goes out before the mirror takes it, as over the socket: a digest that
                // does not match on the last one reports it skipped after it.
                var updates: [Update] = delivery == .assembled ? [] : [.snapshotChunk(chunk, mirror, streamSequence: place)]
                do {
                    guard try mirror.apply(chunk, keepingList: delivery != .chunksWithoutList) else { return updates }
                } catch {
                    updates.append(.skipped("message \(place) (\(envelope.kind.rawValue) \(envelope.cursor)) does not apply: \(error)", streamSequence: place))
                    return updates
                }
                updates.append(.snapshot(mirror, streamSequence: place, layout: envelope.layout))
                return updates
            case .changeset(let changeset):
                return try Self.apply(changeset, to: &mirror, at: place).map { [$0] } ?? []
            case .changesetPart(let part):
                do {
                    guard let changeset = try parts.add(part) else { return [] }
                    return try Self.apply(changeset, to: &mirror, at: place).map { [$0] } ?? []
                } catch let error as ChangesetPartError {
                    return [.skipped("message \(place) (changeset \(envelope.cursor) part \(part.part)): \(error)", streamSequence: place)]
                }
            default:
                return [.skipped("message \(place) is neither a snapshot nor a changeset", streamSequence: place)]
            }
        } catch {
            return [.skipped("message \(place) (\(envelope.kind.rawValue) \(envelope.cursor)) does not apply: \(error)", streamSequence: place)]
        }
    }

    /// Applies a whole changeset; `nil` before any snapshot or cursor, when it has nothing to apply to.
    private static func apply(_ changeset: ChangesetMessage, to mirror: inout MirroredList, at place: UInt64) throws -> Update? {
        guard mirror.cursor != nil else { return nil }
        try mirror.apply(changeset)
        return .changeset(changeset, mirror, streamSequence: place)
    }
}
