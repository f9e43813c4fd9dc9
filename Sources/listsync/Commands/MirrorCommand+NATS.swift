import ListSyncClient
import ListSyncProtocol

extension MirrorCommand {
    /// Follows the watch's subject of the stream on the servers `from` names (`--from`) instead
    /// of the daemon, from `start` (the restored list), saving each version with `save`.
    func followStream(
        from: String, start: MirroredList, state: StateJournal,
        save: (MirroredList, ChangesetMessage?) throws -> Void
    ) async throws {
        try await self.source.nats.follow(
            self.name, from: from, as: "listsync mirror \(self.name)", start: start, state: state,
            handle: { update in
                if case .changeset(let changeset) = update.event {
                    try save(update.mirror, changeset)
                } else {
                    try save(update.mirror, nil)
                }
            },
            caughtUp: { mirror in !(self.once && mirror.hasList) })
    }
}
