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

    /// How many parts of the line at `cursor` of `kind` the stream already has: all of them
    /// (`Int.max`) for a line at or before its last complete cursor, the parts published of a
    /// changeset cut short, else 0 (a snapshot cut short, even after some of its chunks, is
    /// published again whole).
    func partsPublished(of kind: JetStreamEnvelope.Kind, at cursor: Cursor) -> Int {
        guard let last = self.last, last.cursor.epoch == cursor.epoch else { return 0 }
        if cursor.seq < last.cursor.seq { return kind == .changeset ? Int.max : 0 }
        guard cursor.seq == last.cursor.seq else { return 0 }
        if last.completesCursor { return Int.max }
        return last.kind == kind && kind == .changeset ? last.part : 0
    }
}
