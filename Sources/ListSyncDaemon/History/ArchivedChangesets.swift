import ListSyncProtocol

/// Changesets older than a feed's memory cache, kept on disk by the watch's state, which the
/// feed reads back for a client that resumes from an older cursor (``ChangesetHistory``).
///
/// The state's ``ChangesetArchive`` is the one conformance; the protocol lets the feeds read
/// history without depending on how the state stores it, so `History/` uses nothing of `State/`.
protocol ArchivedChangesets: AnyObject, Sendable {
    /// The `seq`s of history `epoch` whose changesets are on disk; `nil` when none are.
    ///
    /// - Complexity: O(1).
    func seqs(of epoch: Epoch) -> ClosedRange<UInt64>?

    /// The line of the changeset that published `seq` of history `epoch`, as it was sent; `nil`
    /// when the archive does not hold it or it cannot be read whole. Called outside every lock
    /// of the feed: it may read the disk.
    func line(publishing seq: UInt64, of epoch: Epoch) -> [UInt8]?
}
