import ListSyncProtocol

/// Why a snapshot chunk, a changeset or a line from the daemon could not be applied to a
/// ``MirroredList``.
///
/// The mirror is left as it was — at its last verified version — and the subscriber recovers as
/// ``recovery`` says: it resubscribes with its cursor when it merely missed something, and for a
/// fresh snapshot when what it received contradicts what it holds.
///
/// A struct with a ``Code`` rather than an enum (as swift-service-lifecycle's
/// `ServiceGroupError`), so that new kinds can be added without breaking code that switches over
/// them: compare ``code`` with the static members of ``Code`` and read the details that kind
/// carries. Errors are made by the static functions named like the codes, e.g.
/// ``sequenceGap(mirror:changeset:prevSeq:)``, and compare equal when code and details are equal.
public struct MirrorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure. Switch over it with a `default`, as more may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case wrongWatch, noBase, epochMismatch, sequenceGap, invalidStage, digestMismatch, snapshotOutOfOrder, undecodable, partsOutOfOrder
        }

        fileprivate let kind: Kind

        /// A message for another watch reached this mirror.
        public static let wrongWatch = Code(kind: .wrongWatch)
        /// A changeset arrived before any snapshot or cursor: there is nothing to apply it to.
        public static let noBase = Code(kind: .noBase)
        /// A changeset from another server history than the mirror's cursor.
        public static let epochMismatch = Code(kind: .epochMismatch)
        /// A changeset that does not follow the mirror's version.
        public static let sequenceGap = Code(kind: .sequenceGap)
        /// A stage names a position the list does not have, or names one twice.
        public static let invalidStage = Code(kind: .invalidStage)
        /// The list does not have the digest the daemon sent.
        public static let digestMismatch = Code(kind: .digestMismatch)
        /// A snapshot chunk that does not continue the snapshot being received.
        public static let snapshotOutOfOrder = Code(kind: .snapshotOutOfOrder)
        /// A line from the daemon that could not be decoded.
        public static let undecodable = Code(kind: .undecodable)
        /// A changeset part that does not continue the changeset being received (one went
        /// missing), or parts over the byte bound: resumed from the cursor, like a gap.
        public static let partsOutOfOrder = Code(kind: .partsOutOfOrder)

        /// The code's name, e.g. `sequenceGap`.
        public var description: String { "\(self.kind)" }
    }

    /// The failure and its details, as the enum this type was.
    private enum Details: Hashable, Sendable {
        case wrongWatch(expected: String, received: String)
        case noBase(changeset: Cursor)
        case epochMismatch(mirror: Cursor, changeset: Cursor)
        case sequenceGap(mirror: Cursor, changeset: Cursor, prevSeq: UInt64)
        case invalidStage(changeset: Cursor, stage: Int, reason: String)
        case digestMismatch(cursor: Cursor, expected: ListDigest, computed: ListDigest)
        case snapshotOutOfOrder(cursor: Cursor, chunk: Int, reason: String)
        case undecodable(ProtocolError)
        case partsOutOfOrder(cursor: Cursor, part: Int, reason: String)
    }

    private let details: Details

    /// The kind of failure.
    public var code: Code {
        switch self.details {
        case .wrongWatch: .wrongWatch
        case .noBase: .noBase
        case .epochMismatch: .epochMismatch
        case .sequenceGap: .sequenceGap
        case .invalidStage: .invalidStage
        case .digestMismatch: .digestMismatch
        case .snapshotOutOfOrder: .snapshotOutOfOrder
        case .undecodable: .undecodable
        case .partsOutOfOrder: .partsOutOfOrder
        }
    }

    /// The mirror's watch, and the one the message was for (``Code/wrongWatch``).
    public var watches: (expected: String, received: String)? {
        if case .wrongWatch(let expected, let received) = self.details { return (expected, received) }
        return nil
    }

    /// The mirror's cursor (``Code/epochMismatch``, ``Code/sequenceGap``).
    public var mirrorCursor: Cursor? {
        switch self.details {
        case .epochMismatch(let mirror, _), .sequenceGap(let mirror, _, _): mirror
        default: nil
        }
    }

    /// The cursor of the changeset or snapshot that could not be applied (every code but
    /// ``Code/wrongWatch`` and ``Code/undecodable``).
    public var cursor: Cursor? {
        switch self.details {
        case .noBase(let changeset), .epochMismatch(_, let changeset), .sequenceGap(_, let changeset, _), .invalidStage(let changeset, _, _):
            changeset
        case .digestMismatch(let cursor, _, _), .snapshotOutOfOrder(let cursor, _, _), .partsOutOfOrder(let cursor, _, _): cursor
        case .wrongWatch, .undecodable: nil
        }
    }

    /// The `prev_seq` of the changeset (``Code/sequenceGap``).
    public var prevSeq: UInt64? {
        if case .sequenceGap(_, _, let prevSeq) = self.details { return prevSeq }
        return nil
    }

    /// The index of the stage that could not be applied (``Code/invalidStage``).
    public var stage: Int? {
        if case .invalidStage(_, let stage, _) = self.details { return stage }
        return nil
    }

    /// The snapshot chunk (``Code/snapshotOutOfOrder``).
    public var chunk: Int? {
        if case .snapshotOutOfOrder(_, let chunk, _) = self.details { return chunk }
        return nil
    }

    /// Why (``Code/invalidStage``, ``Code/snapshotOutOfOrder``).
    public var reason: String? {
        switch self.details {
        case .invalidStage(_, _, let reason), .snapshotOutOfOrder(_, _, let reason), .partsOutOfOrder(_, _, let reason): reason
        default: nil
        }
    }

    /// The daemon's digest and the one computed (``Code/digestMismatch``).
    public var digests: (expected: ListDigest, computed: ListDigest)? {
        if case .digestMismatch(_, let expected, let computed) = self.details { return (expected, computed) }
        return nil
    }

    /// Why the line did not decode (``Code/undecodable``).
    public var protocolError: ProtocolError? {
        if case .undecodable(let error) = self.details { return error }
        return nil
    }

    /// A message for watch `received` reached the mirror of `expected`.
    public static func wrongWatch(expected: String, received: String) -> MirrorError {
        MirrorError(details: .wrongWatch(expected: expected, received: received))
    }

    /// Changeset `changeset` arrived before any snapshot or cursor.
    public static func noBase(changeset: Cursor) -> MirrorError {
        MirrorError(details: .noBase(changeset: changeset))
    }

    /// Changeset `changeset` is from another server history than the mirror's `mirror`.
    public static func epochMismatch(mirror: Cursor, changeset: Cursor) -> MirrorError {
        MirrorError(details: .epochMismatch(mirror: mirror, changeset: changeset))
    }

    /// Changeset `changeset` applies to version `prevSeq`, not to the mirror's `mirror`.
    public static func sequenceGap(mirror: Cursor, changeset: Cursor, prevSeq: UInt64) -> MirrorError {
        MirrorError(details: .sequenceGap(mirror: mirror, changeset: changeset, prevSeq: prevSeq))
    }

    /// Stage `stage` of changeset `changeset` cannot be applied, for `reason`.
    public static func invalidStage(changeset: Cursor, stage: Int, reason: String) -> MirrorError {
        MirrorError(details: .invalidStage(changeset: changeset, stage: stage, reason: reason))
    }

    /// The list at `cursor` has digest `computed`, the daemon's `expected`.
    public static func digestMismatch(cursor: Cursor, expected: ListDigest, computed: ListDigest) -> MirrorError {
        MirrorError(details: .digestMismatch(cursor: cursor, expected: expected, computed: computed))
    }

    /// Chunk `chunk` of snapshot `cursor` does not continue the snapshot, for `reason`.
    public static func snapshotOutOfOrder(cursor: Cursor, chunk: Int, reason: String) -> MirrorError {
        MirrorError(details: .snapshotOutOfOrder(cursor: cursor, chunk: chunk, reason: reason))
    }

    /// Part `part` of changeset `cursor` does not continue the changeset being received, for
    /// `reason`.
    public static func partsOutOfOrder(cursor: Cursor, part: Int, reason: String) -> MirrorError {
        MirrorError(details: .partsOutOfOrder(cursor: cursor, part: part, reason: reason))
    }

    /// A line from the daemon did not decode: `error`.
    public static func undecodable(_ error: ProtocolError) -> MirrorError {
        MirrorError(details: .undecodable(error))
    }

    /// How a subscriber gets back to a correct mirror after this error.
    public enum Recovery: Hashable, Sendable {
        /// Resubscribe with the mirror's cursor: the daemon sends what was missed, or a snapshot.
        case resume
        /// Resubscribe without a cursor, for a fresh snapshot that replaces the mirror.
        case freshSnapshot
    }

    /// How to recover: only a gap in an otherwise consistent stream can be resumed.
    public var recovery: Recovery {
        switch self.details {
        case .sequenceGap, .partsOutOfOrder: return .resume
        case .wrongWatch, .noBase, .epochMismatch, .invalidStage, .digestMismatch, .snapshotOutOfOrder, .undecodable:
            return .freshSnapshot
        }
    }

    /// What went wrong, with the cursors involved.
    public var description: String {
        switch self.details {
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
        case .partsOutOfOrder(let cursor, let part, let reason):
            return "changeset \(cursor) part \(part): \(reason)"
        }
    }
}
