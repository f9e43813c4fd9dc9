import ListSyncProtocol

/// What one new version of a watched file changes for subscribers: handed from the tracker to
/// its ``WatchFeed`` in one piece, so the version, its changeset and the status move together.
struct WatchPublication: Sendable {
    /// The version now live: a new `seq` (with ``changesetLine`` unless it is version 0), or the
    /// same `seq` with content-equal records (whitespace, member order or ignored fields changed).
    var version: WatchVersion?
    /// The encoded `changeset` line that publishes ``version``, written as is to every subscriber.
    var changesetLine: [UInt8]?
    /// The watch's new status, when it changed.
    var status: StatusMessage?

    /// Whether it changes nothing.
    var isEmpty: Bool { self.version == nil && self.status == nil }
}
