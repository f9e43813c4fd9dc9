import ListSyncProtocol

/// Why a snapshot chunk, a changeset or a line from the daemon could not be applied to a
/// ``MirroredList``.
///
/// The mirror is left as it was — at its last verified version — and the subscriber recovers as
/// ``recovery`` says: it resubscribes with its cursor when it merely missed something, and for a
/// fresh snapshot when what it received contradicts what it holds.
public enum MirrorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A message for another watch reached this mirror.
    case wrongWatch(expected: String, received: String)
    /// A changeset arrived before any snapshot or cursor: there is nothing to apply it to.
    case noBase(changeset: Cursor)
    /// A changeset from another server history than the mirror's cursor.
    case epochMismatch(mirror: Cursor, changeset: Cursor)
    /// A changeset that does not follow the mirror's version: `prev_seq` is not the mirror's
    /// `seq`, or the changeset's `seq` is not `prev_seq + 1`.
    case sequenceGap(mirror: Cursor, changeset: Cursor, prevSeq: UInt64)
    /// Stage `stage` of changeset `changeset` names a position the list does not have, or names
    /// one twice.
    case invalidStage(changeset: Cursor, stage: Int, reason: String)
    /// The list after applying `changeset` (or after a complete snapshot) does not have the digest
    /// the daemon sent.
    case digestMismatch(cursor: Cursor, expected: ListDigest, computed: ListDigest)
    /// A snapshot chunk that does not continue the snapshot being received.
    case snapshotOutOfOrder(cursor: Cursor, chunk: Int, reason: String)
    /// A line from the daemon that could not be decoded.
    case undecodable(ProtocolError)

    /// How a subscriber gets back to a correct mirror after this error.
    public enum Recovery: Hashable, Sendable {
        /// Resubscribe with the mirror's cursor: the daemon sends what was missed, or a snapshot.
        case resume
        /// Resubscribe without a cursor, for a fresh snapshot that replaces the mirror.
        case freshSnapshot
    }

    /// How to recover: only a gap in an otherwise consistent stream can be resumed.
    public var recovery: Recovery {
        switch self {
        case .sequenceGap: return .resume
        case .wrongWatch, .noBase, .epochMismatch, .invalidStage, .digestMismatch, .snapshotOutOfOrder, .undecodable:
            return .freshSnapshot
        }
    }

    /// What went wrong, with the cursors involved.
    public var description: String {
        switch self {
        case .wrongWatch(let expected, let received):
            return "a message for watch \"\(received)\" reached the mirror of \"\(expected)\""
        case .noBase(let changeset):
            return "changeset \(changeset) arrived before any snapshot"
        case .epochMismatch(let mirror, let changeset):
            return "changeset \(changeset) is from another server history than the mirror (\(mirror))"
        case .sequenceGap(let mirror, let changeset, let prevSeq):
            return "changeset \(changeset) applies to version \(prevSeq), but the mirror is at \(mirror)"
        case .invalidStage(let changeset, let stage, let reason):
            return "stage \(stage) of changeset \(changeset) cannot be applied: \(reason)"
        case .digestMismatch(let cursor, let expected, let computed):
            return "the mirror at \(cursor) has digest \(computed), the daemon's list has \(expected)"
        case .snapshotOutOfOrder(let cursor, let chunk, let reason):
            return "snapshot \(cursor) chunk \(chunk): \(reason)"
        case .undecodable(let error):
            return "undecodable message from the daemon: \(error)"
        }
    }
}
