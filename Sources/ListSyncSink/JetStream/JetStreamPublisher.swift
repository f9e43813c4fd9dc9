import ListSyncClient
import ListSyncProtocol
import NATSTransport

/// Publishes protocol lines to a watch's subject, each in parts that fit the server's maximum
/// payload, every publish expecting the subject's last sequence; the one place the sink's
/// messages and their headers are made (docs/PROTOCOL.md, "The NATS transport").
///
/// Its calls block on nats.c: run them with ``JetStreamBlocking/run(_:)``.
struct JetStreamPublisher: Sendable {
    /// The NATS connection.
    let connection: NATSConnection
    /// The stream that stores ``subject``.
    let stream: String
    /// The watch's subject.
    let subject: String
    /// The watch.
    let watch: String

    /// What a line published is, for its messages' headers.
    struct Line: Sendable {
        var kind: JetStreamEnvelope.Kind
        var cursor: Cursor
        /// The protocol version of the line: the one the sink's connection to the daemon agreed.
        var protocolVersion: Int
        /// The snapshot's chunk, or the changeset's part at protocol version 2 (else 0).
        var chunk = 0
        /// Whether it is the snapshot's last chunk, or the changeset's last part (true for a
        /// changeset at version 1).
        var lastChunk = true
        var reset = false
        /// For a snapshot: the subject's last sequence before its first message.
        var after: UInt64
        var layout: JetStreamWatchLayout?
    }

    /// The message already in the stream under the ID of one being published.
    struct Duplicate: Error {
        let messageID: String
        let sequence: UInt64
    }

    /// Publishes `bytes` as `line`, in parts that fit the server's maximum payload, skipping the
    /// first `skipping` parts (already in the stream); `position` follows. Each message names the
    /// latest complete snapshot; the message that completes a snapshot names its first message,
    /// whose sequence `snapshotStart` holds (set by the snapshot's first message).
    ///
    /// - Throws: ``NATSError``; ``Duplicate`` when the server already has a message's ID;
    ///   ``JetStreamParts/HeadersTooLarge``.
    func publish(
        _ bytes: [UInt8], as line: Line, position: inout JetStreamPosition, snapshotStart: inout UInt64?, skipping: Int = 0
    ) throws {
        let parts = try JetStreamParts.split(bytes, maximumPayload: self.connection.maximumPayload) { parts in
            // The largest headers a part can have: the last part's number, the longest sequences.
            let envelope = self.envelope(line, part: parts, parts: parts, latestSnapshot: UInt64.max)
            return envelope.headers + [("Nats-Msg-Id", envelope.messageID), ("Nats-Expected-Last-Subject-Sequence", String(UInt64.max))]
        }
        for (index, part) in parts.enumerated() where index >= skipping {
            let first = line.kind == .snapshot && line.chunk == 0 && index == 0
            let completes = line.kind == .snapshot && line.lastChunk && index + 1 == parts.count
            // The message that completes a snapshot of several names the snapshot's first.
            let latest = completes && !first ? snapshotStart : position.last?.latestSnapshot
            let envelope = self.envelope(line, part: index + 1, parts: parts.count, latestSnapshot: latest)
            let acknowledgement = try self.connection.publish(
                part, to: self.subject, of: self.stream, messageID: envelope.messageID, expectedLastSubjectSequence: position.sequence,
                headers: envelope.headers)
            guard !acknowledgement.duplicate else { throw Duplicate(messageID: envelope.messageID, sequence: acknowledgement.sequence) }
            if first { snapshotStart = acknowledgement.sequence }
            var stored = envelope
            stored.latestSnapshot = envelope.latestSnapshot(at: acknowledgement.sequence)
            position = JetStreamPosition(sequence: acknowledgement.sequence, last: stored)
        }
    }

    /// Publishes `changeset` as the lines of protocol `version`: at version 1 its one line, at
    /// version 2 the parts ``ChangesetParts`` cuts a line over 256 KiB into, one line each
    /// (docs/PROTOCOL.md, *Changeset parts*), each line in messages that fit the server's maximum
    /// payload; the messages `published` names (of a changeset cut short) are skipped. The same
    /// changeset is always cut the same way, so the messages left are the ones missing.
    func publish(
        _ changeset: ChangesetMessage, version: Int, layout: JetStreamWatchLayout?, skipping published: JetStreamPosition.Published,
        position: inout JetStreamPosition
    ) throws {
        let whole = ServerMessage.changeset(changeset).encoded()
        let lines = version >= 2 ? ChangesetParts.split(whole) ?? [whole] : [whole]
        var none: UInt64?
        for (index, bytes) in lines.enumerated() where index >= published.line {
            let line = Line(
                kind: .changeset, cursor: changeset.cursor, protocolVersion: version, chunk: index, lastChunk: index == lines.count - 1,
                after: position.sequence, layout: layout)
            try self.publish(bytes, as: line, position: &position, snapshotStart: &none, skipping: index == published.line ? published.part : 0)
        }
    }

    /// Publishes `mirror`'s list as a snapshot at its cursor, chunk by chunk as
    /// ``MirroredList/writeSnapshotLines(targetChunkSize:_:)`` makes them (the chunks the daemon
    /// sends): two chunks in memory at a time beside the list, whatever its size.
    func publishSnapshot(of mirror: MirroredList, reset: Bool, layout: JetStreamWatchLayout?, position: inout JetStreamPosition) throws {
        guard let cursor = mirror.cursor else { return }
        var line = Line(
            kind: .snapshot, cursor: cursor, protocolVersion: mirror.digestVersion.rawValue, lastChunk: false, reset: reset, after: position.sequence, layout: layout)
        var start: UInt64?
        // Each chunk is published once the next is made: the last one is marked so.
        var held: [UInt8]?
        try mirror.writeSnapshotLines { bytes in
            if let previous = held {
                try self.publish(previous, as: line, position: &position, snapshotStart: &start)
                line.chunk += 1
            }
            held = bytes
        }
        guard let last = held else { return }
        line.lastChunk = true
        try self.publish(last, as: line, position: &position, snapshotStart: &start)
    }

    private func envelope(_ line: Line, part: Int, parts: Int, latestSnapshot: UInt64?) -> JetStreamEnvelope {
        JetStreamEnvelope(
            watch: self.watch, cursor: line.cursor, kind: line.kind, part: part, parts: parts, chunk: line.chunk,
            lastChunk: line.lastChunk, reset: line.reset, after: line.after, latestSnapshot: latestSnapshot, layout: line.layout,
            protocolVersion: line.protocolVersion)
    }
}
