import ListSyncClient
import ListSyncProtocol

extension MirrorCommand {
    /// Follows the watch's subject of the stream on the servers `from` names (`--from`) instead
    /// of the daemon, from `start` (the restored list), saving each version with `save`. A
    /// snapshot's records go to `streamed` as its chunks arrive, as over the socket; `save`
    /// commits it once the snapshot verified.
    func followStream(
        from: String, start: MirroredList, state: StateJournal, streamed: StreamedListFile,
        save: (MirroredList, ChangesetMessage?) throws -> Void
    ) async throws {
        try await self.source.nats.follow(
            self.name, from: from, as: "listsync mirror \(self.name)", start: start, state: state, delivery: .chunks,
            handle: { update in
                switch update.event {
                case .snapshotChunk(let chunk):
                    try streamed.receive(chunk)
                case .changeset(let changeset):
                    try save(update.mirror, changeset)
                default:
                    try streamed.finish()
                    try save(update.mirror, nil)
                }
            },
            caughtUp: { mirror in !(self.once && mirror.hasList) })
    }
}
