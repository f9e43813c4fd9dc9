import ListSyncClient
import ListSyncProtocol
import NATSTransport

/// Keeps a watch's subject of a JetStream stream equal to the watch's history: each snapshot
/// and changeset the daemon sends, as the same protocol lines, exactly once. A snapshot goes
/// chunk by chunk, each chunk published as it arrives, so no snapshot is ever held whole.
///
/// Exactly once, and in order: every publish expects the subject's last sequence as the sink
/// last saw it (`Nats-Expected-Last-Subject-Sequence`) and carries a `Nats-Msg-Id` derived from
/// the cursor. At start and after any refused or unacknowledged publish, the sink reads the
/// subject's last message back and subscribes to the daemon from its cursor, so a sink killed at
/// any moment — or a second sink racing it — can neither skip, repeat nor reorder a cursor.
///
/// The sink holds the list, rebuilt from the stream (from its latest snapshot) at start, so that
/// every changeset's digest is checked and the list is republished as a snapshot (chunk by
/// chunk, as it makes them) every ``snapshotInterval`` changesets: a reader never needs more
/// than that tail.
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

    /// How long, in milliseconds, the stream lookup at start waits for an answer before it is
    /// asked again (500 ms later): a cluster that has just started answers no JetStream request
    /// until it has elected its leader, and waiting the connection's request timeout (5 s) for
    /// each unanswered lookup delayed the first publication by 5 s.
    static let startTimeout: Int64 = 1000

    /// How many publishes or reads in a row may fail (about a minute of retries) before the sink gives up.
    private static let attempts = 120

    /// Runs until the watch is removed from the daemon's configuration (``SinkRunner/Ending/removed``),
    /// the subscription fails for good, or NATS keeps failing (throws ``NATSError``). With
    /// `--max-age`, the bound is also enforced on a timer, so that an idle stream is trimmed too.
    ///
    /// The client must deliver snapshots chunk by chunk (``SnapshotDelivery/chunks``): each chunk
    /// is published as it arrives (with ``SnapshotDelivery/assembled`` nothing of a snapshot is).
    public func run(reporting report: @escaping @Sendable (SinkEvent) -> Void) async throws -> SinkRunner.Ending {
        let keeper = JetStreamRetentionKeeper(self.retention, connection: self.connection, stream: self.stream.name, subject: self.subject)
        let timer = Task { await keeper.runTimer { report(.warning($0)) } }
        defer { timer.cancel() }
        return try await self.publishing(retention: keeper, reporting: report)
    }

    /// A snapshot whose chunks are being published as the daemon sends them.
    private struct SnapshotInProgress {
        var line: JetStreamPublisher.Line
        /// The sequence of its first message, once published.
        var start: UInt64?
    }

    /// ``run(reporting:)`` without the timer.
    private func publishing(retention: JetStreamRetentionKeeper, reporting report: (SinkEvent) -> Void) async throws -> SinkRunner.Ending {
        var failures = 0
        var repositions = 0
        var streamReady = false
        let publisher = JetStreamPublisher(connection: self.connection, stream: self.stream.name, subject: self.subject, watch: self.watch)
        while true {
            let position: JetStreamPosition
            let start: (mirror: MirroredList, changesetsSinceSnapshot: Int)
            do {
                // A cluster that just started may have no JetStream leader yet: retried.
                if !streamReady {
                    let (connection, stream) = (self.connection, self.stream)
                    _ = try await JetStreamBlocking.run { try connection.ensureStream(stream, timeoutMilliseconds: Self.startTimeout) }
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
                var snapshot: SnapshotInProgress?
                for try await update in updates {
                    do {
                        let before = current.sequence
                        switch update.event {
                        case .subscribed(let subscription):
                            reason = subscription.reason
                            snapshot = nil
                            report(.subscribed(subscription))
                            layout = await self.watchLayout() ?? layout
                        case .snapshotChunk(let chunk):
                            if chunk.chunk == 0 {
                                snapshot = nil
                                let version = update.mirror.digestVersion.rawValue
                                guard current.published(of: .snapshot, at: chunk.cursor, version: version) != .everything else { continue }
                                layout = await self.watchLayout() ?? layout
                                let line = JetStreamPublisher.Line(
                                    kind: .snapshot, cursor: chunk.cursor, protocolVersion: version, reset: current.last != nil || reason != nil,
                                    after: current.sequence, layout: layout)
                                snapshot = SnapshotInProgress(line: line)
                            }
                            // A chunk of a snapshot already in the stream, or of one cut short.
                            guard var streaming = snapshot, streaming.line.cursor == chunk.cursor, streaming.line.chunk == chunk.chunk else {
                                continue
                            }
                            streaming.line.lastChunk = chunk.last
                            try await self.publish(ServerMessage.snapshot(chunk).encoded(), as: streaming.line, with: publisher,
                                position: &current, snapshotStart: &streaming.start)
                            streaming.line.chunk += 1
                            snapshot = streaming
                        case .snapshot(let cursor):
                            // Verified, its last chunk published (or already in the stream).
                            guard let published = snapshot, published.line.cursor == cursor, published.line.lastChunk else { continue }
                            snapshot = nil
                            sinceSnapshot = 0
                            report(.replaced(cursor: cursor, rows: update.mirror.recordCount))
                        case .changeset(let changeset):
                            // The version the connection agreed: its lines, digests and parts.
                            let version = update.mirror.digestVersion.rawValue
                            let published = current.published(of: .changeset, at: changeset.cursor, version: version)
                            guard published != .everything else { continue }
                            if let last = current.last, last.completesCursor, last.cursor.epoch == changeset.cursor.epoch,
                                changeset.prevSeq != last.cursor.seq
                            {
                                return .reposition("changeset \(changeset.cursor) does not follow the stream's \(last.cursor)")
                            }
                            let from = current
                            current = try await JetStreamBlocking.run { [layout] in
                                var position = from
                                try publisher.publish(changeset, version: version, layout: layout, skipping: published, position: &position)
                                return position
                            }
                            report(.applied(cursor: changeset.cursor, rows: changeset.stages.count))
                            sinceSnapshot += 1
                            if self.snapshotInterval > 0, sinceSnapshot >= self.snapshotInterval, update.mirror.hasList {
                                // The same cursor as the changeset: a reader takes whichever it reaches first.
                                let (mirror, from) = (update.mirror, current)
                                current = try await JetStreamBlocking.run { [layout] in
                                    var position = from
                                    try publisher.publishSnapshot(of: mirror, reset: false, layout: layout, position: &position)
                                    return position
                                }
                                sinceSnapshot = 0
                            }
                        case .status(let status):
                            report(.status(status))
                            if status.state == .removed { return .finished(.removed) }
                        case .disconnected(let error, let retryIn):
                            snapshot = nil
                            report(.disconnected(error, retryIn: retryIn))
                        case .resyncing:
                            snapshot = nil
                        }
                        if current.sequence != before, let line = try await retention.enforce(latestSnapshot: current.last?.latestSnapshot) {
                            report(.warning(line))
                        }
                        failures = 0
                    } catch let error as NATSError {
                        failures += 1
                        guard failures < Self.attempts else { throw error }
                        if !(error.isWrongLastSequence) { try await Task.sleep(for: .milliseconds(min(250 * failures, 2000))) }
                        return .reposition("\(error)")
                    } catch let duplicate as JetStreamPublisher.Duplicate {
                        return .reposition("\(duplicate.messageID) is already in the stream (sequence \(duplicate.sequence))")
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
            case .snapshotChunk:
                break
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

    /// Publishes `bytes` as `line` with `publisher` (``JetStreamPublisher/publish(_:as:position:snapshotStart:skipping:)``),
    /// off the cooperative pool; `position` and `snapshotStart` follow.
    private func publish(
        _ bytes: [UInt8], as line: JetStreamPublisher.Line, with publisher: JetStreamPublisher, position: inout JetStreamPosition,
        snapshotStart: inout UInt64?
    ) async throws {
        let (from, start) = (position, snapshotStart)
        (position, snapshotStart) = try await JetStreamBlocking.run {
            var (position, start) = (from, start)
            try publisher.publish(bytes, as: line, position: &position, snapshotStart: &start)
            return (position, start)
        }
    }
}
