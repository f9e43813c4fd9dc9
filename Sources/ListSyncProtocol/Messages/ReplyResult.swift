/// What a request produced; on the wire, `request` names the request's type and the result's
/// fields sit beside it.
public enum ReplyResult: Hashable, Sendable {
    /// For `list`: the watches.
    case list([WatchSummary])
    /// For `subscribe`: how the subscription starts.
    case subscribed(Subscription)
    /// For `unsubscribe`: the watch no longer streams.
    case unsubscribed(watch: String)
    /// For `ping`.
    case pong
    /// For `metrics`: the exposition in the Prometheus text format (field `text`).
    case metrics(exposition: String)

    /// The `type` of the request this answers.
    public var request: String {
        switch self {
        case .list: return "list"
        case .subscribed: return "subscribe"
        case .unsubscribed: return "unsubscribe"
        case .pong: return "ping"
        case .metrics: return "metrics"
        }
    }

    /// How a subscription starts.
    public struct Subscription: Hashable, Sendable {
        /// The watch.
        public var watch: String
        /// Whether the missed changesets or a snapshot follow.
        public var mode: Mode
        /// The watch's cursor when the subscription started: the snapshot's, or the last missed
        /// changeset's; `nil` when the watch has no valid version yet (the snapshot follows its
        /// first one).
        public var cursor: Cursor?
        /// Why a subscription that gave a cursor (`since`) starts with a snapshot instead of
        /// resuming; `nil` otherwise, and from servers before this field (an addition to
        /// version 1). A reason this build does not know decodes as `nil`.
        public var reason: SnapshotReason?

        /// A subscription start.
        public init(watch: String, mode: Mode, cursor: Cursor?, reason: SnapshotReason? = nil) {
            self.watch = watch
            self.mode = mode
            self.cursor = cursor
            self.reason = reason
        }

        /// Why the cursor a client gave cannot be resumed from (the reply's `reason`).
        public enum SnapshotReason: String, Hashable, Sendable, CaseIterable {
            /// The cursor's epoch is not the watch's history (another watch's, or a history the
            /// watch no longer has).
            case otherHistory = "other_history"
            /// The cursor names a `seq` the watch never published.
            case unknownSeq = "unknown_seq"
            /// The cursor is older than the history the server keeps (`history_length`,
            /// `history_max_mib`): the changesets after it are gone.
            case historyTrimmed = "history_trimmed"
        }

        /// What follows the reply.
        public enum Mode: String, Hashable, Sendable, CaseIterable {
            /// Exactly the changesets after `since`, in order.
            case resume
            /// A snapshot of the current version.
            case snapshot
        }
    }
}
