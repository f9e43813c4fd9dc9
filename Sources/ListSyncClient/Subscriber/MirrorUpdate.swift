import ListSyncProtocol

/// Something that happened to a subscription, with the mirror as it is right after.
///
/// A subscriber produces one for each verified snapshot and changeset, each status, each
/// resubscription and each lost connection. The ``mirror`` is a value: keep it as long as you
/// like (keeping it makes the next change copy what it touches).
public struct MirrorUpdate: Sendable {
    /// What happened.
    public enum Event: Sendable {
        /// The daemon accepted the subscription: the missed changesets (`resume`) or a snapshot
        /// follow, up to the subscription's `cursor`.
        case subscribed(ReplyResult.Subscription)
        /// A chunk of a snapshot arrived, in order (only with ``SnapshotDelivery/chunks`` or
        /// ``SnapshotDelivery/chunksWithoutList``): write its records out as they come. The
        /// snapshot counts only once ``snapshot(cursor:)`` follows its last chunk; a
        /// ``resyncing(_:)`` or ``disconnected(_:retryIn:)`` before that means it never will
        /// (drop what was written), and a chunk 0 starts another.
        case snapshotChunk(SnapshotChunk)
        /// A complete snapshot, its digest verified, replaced the mirror's list; it is at `cursor`.
        case snapshot(cursor: Cursor)
        /// A changeset was applied and the mirror's digest verified.
        case changeset(ChangesetMessage)
        /// The watch's state changed (or was reported after subscribing).
        case status(StatusMessage)
        /// What arrived did not verify; the mirror stayed at its last verified version and the
        /// subscriber resubscribed as the error's ``MirrorError/recovery`` says.
        case resyncing(MirrorError)
        /// The connection failed or was lost; the subscriber reconnects after `retryIn` and
        /// resumes from the mirror's cursor.
        case disconnected(ClientError, retryIn: Duration)
    }

    /// What happened.
    public let event: Event
    /// The mirror right after the event.
    public let mirror: MirroredList
    /// The subscriber's phase right after the event.
    public let phase: SubscriberPhase
    /// Whether the mirror has caught up with the version the daemon had when the subscription
    /// started (and so reflects the daemon's current version, as far as the subscriber knows).
    public let isCurrent: Bool

    /// An update.
    public init(event: Event, mirror: MirroredList, phase: SubscriberPhase, isCurrent: Bool) {
        self.event = event
        self.mirror = mirror
        self.phase = phase
        self.isCurrent = isCurrent
    }
}
