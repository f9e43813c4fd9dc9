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

    /// A sink of `watch` into `subject` of `stream`.
    public init(client: ListSyncClient, watch: String, connection: NATSConnection, stream: NATSStreamSettings, subject: String) {
        self.client = client
        self.watch = watch
        self.connection = connection
        self.stream = stream
        self.subject = subject
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

    /// Runs until the watch is removed from the daemon's configuration (``SinkRunner/Ending/removed``),
    /// the subscription fails for good, or NATS keeps failing (throws ``NATSError``).
    public func run(reporting report: (SinkEvent) -> Void) async throws -> SinkRunner.Ending {
        var failures = 0
        var repositions = 0
        var streamReady = false
        while true {
            let position: JetStreamPosition
            do {
                // A cluster that just started may have no JetStream leader yet: retried.
                if !streamReady {
                    let (connection, stream) = (self.connection, self.stream)
                    try await JetStreamBlocking.run { try connection.ensureStream(stream) }
                    streamReady = true
                }
                position = try await self.readPosition()
            } catch {
                failures += 1
                guard failures < Self.attempts else { throw error }
                report(.resynchronizing(reason: "\(error); trying again", count: repositions))
                try await Task.sleep(for: .milliseconds(500))
                continue
            }
            let mirror = position.resumeCursor.map { MirroredList(watch: self.watch, following: $0) } ?? MirroredList(watch: self.watch)
            var current = position
            let outcome = try await self.client.withMirror(resuming: mirror) { updates -> Outcome in
                var reason: ReplyResult.Subscription.SnapshotReason?
                for try await update in updates {
                    do {
                        switch update.event {
                        case .subscribed(let subscription):
                            reason = subscription.reason
                            report(.subscribed(subscription))
                        case .snapshot(let cursor):
                            guard current.partsPublished(of: .snapshot, at: cursor) != Int.max,
                                let line = update.mirror.snapshotLine
                            else { continue }
                            try await self.publish(line, kind: .snapshot, at: cursor, reset: current.last != nil || reason != nil, position: &current)
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
                                reset: false, position: &current, skipping: published)
                            report(.applied(cursor: changeset.cursor, rows: changeset.stages.count))
                        case .status(let status):
                            report(.status(status))
                            if status.state == .removed { return .finished(.removed) }
                        case .disconnected(let error, let retryIn):
                            report(.disconnected(error, retryIn: retryIn))
                        case .resyncing:
                            break
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

    /// The stream was not as the sink expected.
    private struct Conflict: Error {
        let reason: String
    }

    /// The subject's last message, as a position.
    private func readPosition() async throws -> JetStreamPosition {
        let (connection, stream, subject) = (self.connection, self.stream.name, self.subject)
        guard let message = try await JetStreamBlocking.run({ try connection.lastMessage(in: stream, subject: subject) }) else {
            return JetStreamPosition(sequence: 0, last: nil)
        }
        return JetStreamPosition(sequence: message.streamSequence, last: JetStreamEnvelope(headers: message.headers))
    }

    /// Publishes `line` in parts that fit the server's maximum payload, skipping the first
    /// `skipping` parts (already in the stream), each expecting the subject's last sequence;
    /// `position` follows.
    private func publish(
        _ line: [UInt8], kind: JetStreamEnvelope.Kind, at cursor: Cursor, reset: Bool, position: inout JetStreamPosition,
        skipping: Int = 0
    ) async throws {
        let parts = JetStreamParts.split(line, maximumPayload: self.connection.maximumPayload)
        let after = position.sequence
        for (index, part) in parts.enumerated() where index >= skipping {
            let envelope = JetStreamEnvelope(
                watch: self.watch, cursor: cursor, kind: kind, part: index + 1, parts: parts.count, reset: reset, after: after)
            let (connection, subject, expected) = (self.connection, self.subject, position.sequence)
            let acknowledgement = try await JetStreamBlocking.run {
                try connection.publish(
                    part, to: subject, messageID: envelope.messageID, expectedLastSubjectSequence: expected, headers: envelope.headers)
            }
            guard !acknowledgement.duplicate else {
                throw Conflict(reason: "\(envelope.messageID) is already in the stream (sequence \(acknowledgement.sequence))")
            }
            position = JetStreamPosition(sequence: acknowledgement.sequence, last: envelope)
        }
    }
}
