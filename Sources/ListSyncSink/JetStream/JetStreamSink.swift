import ListSyncClient
import ListSyncProtocol
import NATSTransport

/// Keeps a watch's subject of a JetStream stream equal to the watch's history: each snapshot
/// and changeset the daemon sends, as the same protocol line, exactly once.
///
/// Exactly once, and in order: every publish expects the subject's last sequence as the sink
/// last saw it (`Nats-Expected-Last-Subject-Sequence`) and carries a `Nats-Msg-Id` derived from
/// the cursor. At start and after any refused or unacknowledged publish, the sink reads the
/// subject's last message back and subscribes to the daemon from its cursor, so a sink killed at
/// any moment — or a second sink racing it — can neither skip, repeat nor reorder a cursor.
///
/// The sink holds the list, rebuilt from the stream (from its latest snapshot) at start, so that
/// every changeset's digest is checked and the list is republished as a snapshot every
/// ``snapshotInterval`` changesets: a reader never needs more than that tail.
public struct JetStreamSink {
    /// Where the list comes from.
    public var client: ListSyncClient
    /// The watch.
    public var watch: String
    /// The NATS connection.
    public var connection: NATSConnection
    /// The stream, created when missing.
    public var stream: NATSStreamSettings
    /// The subject the watch's messages go to (one of the stream's subjects).
    public var subject: String
    /// After how many changesets the list is published again as a snapshot (0: never).
    public var snapshotInterval: Int
    /// The bound on the stream, enforced by purging the subject below its latest snapshot.
    public var retention: JetStreamRetention

    /// A sink of `watch` into `subject` of `stream`.
    public init(
        client: ListSyncClient, watch: String, connection: NATSConnection, stream: NATSStreamSettings, subject: String,
        snapshotInterval: Int = 1000, retention: JetStreamRetention = JetStreamRetention()
    ) {
        self.client = client
        self.watch = watch
        self.connection = connection
        self.stream = stream
        self.subject = subject
        self.snapshotInterval = snapshotInterval
        self.retention = retention
    }

    /// Why a subscription ended.
    private enum Outcome {
        /// The stream is not where the sink thought it was (or a publish went unanswered): read
        /// its last message again and resubscribe from it.
        case reposition(String)
        case finished(SinkRunner.Ending)
    }

    /// How many publishes or reads in a row may fail (about a minute of retries) before the sink gives up.
    private static let attempts = 120

    /// The stream was not as the sink expected.
    private struct Conflict: Error {
        let reason: String
    }

    /// Runs until the watch is removed from the daemon's configuration (``SinkRunner/Ending/removed``),
    /// the subscription fails for good, or NATS keeps failing (throws ``NATSError``).
    public func run(reporting report: (SinkEvent) -> Void) async throws -> SinkRunner.Ending {
        var failures = 0
        var repositions = 0
        var streamReady = false
        var retention = self.retention
        while true {
            let position: JetStreamPosition
            let start: (mirror: MirroredList, changesetsSinceSnapshot: Int)
            do {
                // A cluster that just started may have no JetStream leader yet: retried.
                if !streamReady {
                    let (connection, stream) = (self.connection, self.stream)
                    _ = try await JetStreamBlocking.run { try connection.ensureStream(stream) }
                    streamReady = true
                }
                position = try await self.readPosition()
                start = try await self.rebuild(at: position, reporting: report)
            } catch {
                failures += 1
                guard failures < Self.attempts else { throw error }
                report(.resynchronizing(reason: "\(error); trying again", count: repositions))
                try await Task.sleep(for: .milliseconds(500))
                continue
            }
            var current = position
            var sinceSnapshot = start.changesetsSinceSnapshot
            // How the watch reads its file, asked of the daemon at each subscription and
            // snapshot (a reload that changes it starts a new epoch, with a snapshot).
            var layout: JetStreamWatchLayout?
            let outcome = try await self.client.withMirror(resuming: start.mirror) { updates -> Outcome in
                var reason: ReplyResult.Subscription.SnapshotReason?
                for try await update in updates {
                    do {
                        let before = current.sequence
                        switch update.event {
                        case .subscribed(let subscription):
                            reason = subscription.reason
                            report(.subscribed(subscription))
                            layout = await self.watchLayout() ?? layout
                        case .snapshot(let cursor):
                            guard current.partsPublished(of: .snapshot, at: cursor) != Int.max else { continue }
                            guard let line = update.mirror.snapshotLine else {
                                report(.warning("the snapshot at \(cursor) came without its digest: not published"))
                                continue
                            }
                            layout = await self.watchLayout() ?? layout
                            try await self.publish(
                                line, kind: .snapshot, at: cursor, reset: current.last != nil || reason != nil, layout: layout, position: &current)
                            sinceSnapshot = 0
                            report(.replaced(cursor: cursor, rows: update.mirror.recordCount))
                        case .changeset(let changeset):
                            let published = current.partsPublished(of: .changeset, at: changeset.cursor)
                            guard published != Int.max else { continue }
                            if let last = current.last, last.completesLine, last.cursor.epoch == changeset.cursor.epoch,
                                changeset.prevSeq != last.cursor.seq
                            {
                                return .reposition("changeset \(changeset.cursor) does not follow the stream's \(last.cursor)")
                            }
                            try await self.publish(ServerMessage.changeset(changeset).encoded(), kind: .changeset, at: changeset.cursor,
                                reset: false, layout: layout, position: &current, skipping: published)
                            report(.applied(cursor: changeset.cursor, rows: changeset.stages.count))
                            sinceSnapshot += 1
                            if self.snapshotInterval > 0, sinceSnapshot >= self.snapshotInterval, let line = update.mirror.snapshotLine {
                                // The same cursor as the changeset: a reader takes whichever it reaches first.
                                try await self.publish(line, kind: .snapshot, at: changeset.cursor, reset: false, layout: layout, position: &current)
                                sinceSnapshot = 0
                            }
                        case .status(let status):
                            report(.status(status))
                            if status.state == .removed { return .finished(.removed) }
                        case .disconnected(let error, let retryIn):
                            report(.disconnected(error, retryIn: retryIn))
                        case .resyncing, .snapshotChunk:
                            break
                        }
                        if current.sequence != before, let line = try await retention.enforce(
                            on: self.connection, stream: self.stream.name, subject: self.subject, latestSnapshot: current.last?.latestSnapshot)
                        {
                            report(.warning(line))
                        }
                        failures = 0
                    } catch let error as NATSError {
                        failures += 1
                        guard failures < Self.attempts else { throw error }
                        if !(error.isWrongLastSequence) { try await Task.sleep(for: .milliseconds(min(250 * failures, 2000))) }
                        return .reposition("\(error)")
                    } catch let conflict as Conflict {
                        return .reposition(conflict.reason)
                    }
                }
                return .finished(.ended)
            }
            switch outcome {
            case .reposition(let reason):
                repositions += 1
                report(.resynchronizing(reason: "reading the stream's last message again: \(reason)", count: repositions))
            case .finished(let ending):
                return ending
            }
        }
    }

    /// How the daemon says the watch reads its file; `nil` when it does not answer.
    private func watchLayout() async -> JetStreamWatchLayout? {
        await JetStreamWatchLayout.asked(of: self.client, watch: self.watch)
    }

    /// The subject's last message, as a position.
    private func readPosition() async throws -> JetStreamPosition {
        let (connection, stream, subject) = (self.connection, self.stream.name, self.subject)
        guard let message = try await JetStreamBlocking.run({ try connection.lastMessage(in: stream, subject: subject) }) else {
            return JetStreamPosition(sequence: 0, last: nil)
        }
        var last = JetStreamEnvelope(headers: message.headers)
        let latest = last?.latestSnapshot(at: message.streamSequence)
        last?.latestSnapshot = latest
        return JetStreamPosition(sequence: message.streamSequence, last: last)
    }

    /// The list at the position's resume cursor, read back from the stream (from its latest
    /// snapshot), and the changesets after that snapshot; a mirror holding only the cursor when
    /// the stream does not lead to it, an empty one when there is no cursor to resume from.
    /// Each message it cannot use, and a list it cannot rebuild, is reported.
    private func rebuild(
        at position: JetStreamPosition, reporting report: (SinkEvent) -> Void
    ) async throws -> (mirror: MirroredList, changesetsSinceSnapshot: Int) {
        guard let cursor = position.resumeCursor else { return (MirroredList(watch: self.watch), 0) }
        var rebuilt = MirroredList(watch: self.watch)
        var changesets = 0
        let follower = JetStreamFollower(connection: self.connection, stream: self.stream.name, subject: self.subject)
        try await follower.follow(from: rebuilt, after: 0) { update in
            switch update {
            case .snapshot(let mirror, _, _):
                rebuilt = mirror
                changesets = 0
            case .changeset(_, let mirror, _):
                rebuilt = mirror
                changesets += 1
            case .skipped(let reason, _):
                report(.warning("rebuilding the list from the stream: \(reason)"))
            case .caughtUp(let mirror):
                rebuilt = mirror
                return false
            }
            return rebuilt.cursor != cursor || !rebuilt.hasList
        }
        guard rebuilt.hasList, rebuilt.cursor == cursor else {
            let reached = rebuilt.hasList ? "it reached \(rebuilt.cursor.map { "\($0)" } ?? "no cursor")" : "it holds no usable snapshot before it"
            report(.warning(
                "the stream's messages do not rebuild the list at its last cursor \(cursor) (\(reached)): following the daemon from \(cursor) without the list; no snapshot is published again until the daemon sends one"))
            return (MirroredList(watch: self.watch, following: cursor), 0)
        }
        return (rebuilt, changesets)
    }

    /// Publishes `line` in parts that fit the server's maximum payload, skipping the first
    /// `skipping` parts (already in the stream), each expecting the subject's last sequence;
    /// `position` follows. Each message names the latest complete snapshot; a snapshot becomes
    /// it once its last part is stored.
    private func publish(
        _ line: [UInt8], kind: JetStreamEnvelope.Kind, at cursor: Cursor, reset: Bool, layout: JetStreamWatchLayout?,
        position: inout JetStreamPosition, skipping: Int = 0
    ) async throws {
        let after = position.sequence
        let parts = try JetStreamParts.split(line, maximumPayload: self.connection.maximumPayload) { parts in
            // The largest headers a part can have: the last part's number, the longest sequences.
            let envelope = JetStreamEnvelope(
                watch: self.watch, cursor: cursor, kind: kind, part: parts, parts: parts, reset: reset, after: after,
                latestSnapshot: UInt64.max, layout: layout)
            return envelope.headers + [("Nats-Msg-Id", envelope.messageID), ("Nats-Expected-Last-Subject-Sequence", String(UInt64.max))]
        }
        var firstPart: UInt64?
        for (index, part) in parts.enumerated() where index >= skipping {
            // The last part of a snapshot in several names the snapshot's first part.
            let latest = kind == .snapshot && index + 1 == parts.count && index > 0 ? firstPart : position.last?.latestSnapshot
            let envelope = JetStreamEnvelope(
                watch: self.watch, cursor: cursor, kind: kind, part: index + 1, parts: parts.count, reset: reset, after: after,
                latestSnapshot: latest, layout: layout)
            let (connection, subject, stream, expected) = (self.connection, self.subject, self.stream.name, position.sequence)
            let acknowledgement = try await JetStreamBlocking.run {
                try connection.publish(
                    part, to: subject, of: stream, messageID: envelope.messageID, expectedLastSubjectSequence: expected,
                    headers: envelope.headers)
            }
            guard !acknowledgement.duplicate else {
                throw Conflict(reason: "\(envelope.messageID) is already in the stream (sequence \(acknowledgement.sequence))")
            }
            if index == 0 { firstPart = acknowledgement.sequence }
            var stored = envelope
            stored.latestSnapshot = envelope.latestSnapshot(at: acknowledgement.sequence)
            position = JetStreamPosition(sequence: acknowledgement.sequence, last: stored)
        }
    }
}
