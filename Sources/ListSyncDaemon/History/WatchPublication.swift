import DurableFiles
import ListSyncProtocol

/// What one new version of a watched file changes for subscribers: handed from the tracker to
/// its ``WatchFeed`` in one piece, so the version, its changeset and the status move together.
struct WatchPublication: Sendable {
    /// The version now live, with a new `seq` (and ``changesetLine`` unless it is version 0). A
    /// content-equal read of the file publishes none: the live version stays as it was published.
    var version: WatchVersion?
    /// The encoded `changeset` line that publishes ``version``, written as is to every subscriber:
    /// one piece, an array or, for a long line, a mapping of the file it was written to as it
    /// was encoded (``ChangesetLineSpool``, issue 19), shared by the history and the state store.
    var changesetLine: FileBytes?
    /// The watch's new status, when it changed.
    var status: StatusMessage?
    /// What the changeset does to records, for the metrics; `nil` without a changeset.
    var changes: RecordChanges?
    /// Whether the read behind it was an invalid version (content that does not parse, or a
    /// file that cannot be read), counted by `listsync_watch_invalid_versions_total` even when
    /// the status stays the same.
    var isInvalidRead = false
    /// Whether the watch's state can be saved, when that changed: `false` when a version could
    /// not be made durable (it is not published), `true` once one is again.
    var savesState: Bool?

    /// Whether it changes nothing.
    var isEmpty: Bool { self.version == nil && self.status == nil && !self.isInvalidRead && self.savesState == nil }
}
