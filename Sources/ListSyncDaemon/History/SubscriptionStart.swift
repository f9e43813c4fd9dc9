import ListSyncProtocol

/// How a new subscription starts: with the changesets a client missed, or a snapshot.
enum SubscriptionStart: Hashable, Sendable {
    /// Send the changesets that published `firstSeq` up to the current version, in order (none
    /// when the client is already current).
    case resume(firstSeq: UInt64)
    /// Send a snapshot of the current version.
    case snapshot
    /// The watch has no valid version yet: the snapshot follows its first one.
    case awaitingFirstVersion

    /// Decides how to start a subscription with cursor `since`.
    ///
    /// Resumes only when `since` is from this `epoch`, names a version the server published
    /// (not beyond `currentSeq`) and every changeset after it is still in `history`; otherwise a
    /// snapshot — for a cursor from another server run, a `seq` never published or one too old.
    ///
    /// - Complexity: O(1).
    static func plan(since: Cursor?, epoch: Epoch, currentSeq: UInt64?, history: ChangesetHistory) -> SubscriptionStart {
        guard let currentSeq else { return .awaitingFirstVersion }
        guard let since, since.epoch == epoch, since.seq <= currentSeq else { return .snapshot }
        if since.seq == currentSeq {
            return .resume(firstSeq: currentSeq + 1)
        }
        guard let oldestSeq = history.oldestSeq, oldestSeq <= since.seq + 1, history.newestSeq == currentSeq else {
            return .snapshot
        }
        return .resume(firstSeq: since.seq + 1)
    }
}
