import ListSyncProtocol

/// Where a watch's subject in the stream stands: the sequence of its last message and what that
/// message was. Read back from the server at start and after every conflict, it plays the part
/// `listsync_cursors` plays for a table.
struct JetStreamPosition: Sendable {
    /// The subject's last sequence in the stream, 0 when it has no message: what the next publish
    /// expects (`Nats-Expected-Last-Subject-Sequence`).
    var sequence: UInt64
    /// The last message's envelope; `nil` when the subject has none (or its last message is not
    /// a ListSync message, which the sink will not follow).
    var last: JetStreamEnvelope?

    /// The cursor to subscribe from: the last complete changeset's or snapshot's. For a changeset cut short after
    /// some of its parts, the cursor before it (the daemon sends it again, the same bytes, and
    /// only the missing parts are published); for a snapshot cut short, none (a new snapshot).
    var resumeCursor: Cursor? {
        guard let last = self.last else { return nil }
        if last.completesCursor { return last.cursor }
        guard last.kind == .changeset, last.cursor.seq > 0 else { return nil }
        return Cursor(epoch: last.cursor.epoch, seq: last.cursor.seq - 1)
    }

    /// The messages of a version the stream already has: every part up to and including part
    /// `part` (from 1) of its line `line` (a snapshot's chunk, a changeset's part at protocol
    /// version 2; 0 otherwise).
    struct Published: Equatable, Sendable {
        var line: Int
        var part: Int
        /// None of them.
        static let nothing = Published(line: 0, part: 0)
        /// All of them.
        static let everything = Published(line: .max, part: .max)

        /// Whether the stream already has part `part` of line `line`.
        func contains(line: Int, part: Int) -> Bool {
            line < self.line || (line == self.line && part <= self.part)
        }
    }

    /// What the stream already has of the line(s) at `cursor` of `kind`, published at protocol
    /// `version`: everything for a version at or before its last complete cursor; for a
    /// changeset cut short at the same version, the messages published of it (the rest is
    /// published from the next one: the sink encodes and cuts the same changeset the same way);
    /// else nothing (a snapshot cut short, even after some of its chunks, is published again
    /// whole, and so is a changeset cut short at another version, whose messages have other IDs).
    func published(of kind: JetStreamEnvelope.Kind, at cursor: Cursor, version: Int) -> Published {
        guard let last = self.last, last.cursor.epoch == cursor.epoch else { return .nothing }
        if cursor.seq < last.cursor.seq { return kind == .changeset ? .everything : .nothing }
        guard cursor.seq == last.cursor.seq else { return .nothing }
        if last.completesCursor { return .everything }
        guard last.kind == kind, kind == .changeset, last.protocolVersion == version else { return .nothing }
        return Published(line: last.chunk, part: last.part)
    }
}
