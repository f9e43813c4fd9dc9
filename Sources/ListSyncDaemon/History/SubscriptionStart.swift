import ListSyncProtocol

/// How a new subscription starts: with the changesets a client missed, or a snapshot.
enum SubscriptionStart: Hashable, Sendable {
    /// Send the changesets that published `firstSeq` up to the current version, in order (none
    /// when the client is already current).
    case resume(firstSeq: UInt64)
    /// Send a snapshot of the current version; `reason` says why a cursor given could not be
    /// resumed from (`nil` when none was given).
    case snapshot(reason: ReplyResult.Subscription.SnapshotReason?)
    /// The watch has no valid version yet: the snapshot follows its first one.
    case awaitingFirstVersion

    /// Decides how to start a subscription with cursor `since`.
    ///
    /// Resumes only when `since` is from this `epoch`, names a version the server published
    /// (not beyond `currentSeq`) and every changeset after it is still kept in `history` (in
    /// memory or on disk); otherwise a snapshot — for a cursor of another history (another
    /// watch's, or an epoch the watch no longer has), a `seq` never published, or one too old.
    ///
    /// - Complexity: O(1).
    /// A `digestVersion` 1 subscriber resumes only when every changeset it would get but the
    /// current version's has its version 1 digest kept (the current one's is computed on demand).
    static func plan(
        since: Cursor?, epoch: Epoch, currentSeq: UInt64?, history: ChangesetHistory, digestVersion: DigestVersion = .v2
    ) -> SubscriptionStart {
        guard let currentSeq else { return .awaitingFirstVersion }
        guard let since else { return .snapshot(reason: nil) }
        guard since.epoch == epoch else { return .snapshot(reason: .otherHistory) }
        guard since.seq <= currentSeq else { return .snapshot(reason: .unknownSeq) }
        if since.seq == currentSeq {
            return .resume(firstSeq: currentSeq + 1)
        }
        guard let oldestSeq = history.oldestSeq, oldestSeq <= since.seq + 1, history.newestSeq == currentSeq else {
            return .snapshot(reason: .historyTrimmed)
        }
        if digestVersion == .v1, since.seq + 1 < currentSeq, !history.hasV1Digests(for: (since.seq + 1)..<currentSeq) {
            return .snapshot(reason: .historyTrimmed)
        }
        return .resume(firstSeq: since.seq + 1)
    }
}
