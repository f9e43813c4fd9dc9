import ListSyncClient
import ListSyncProtocol
import ListSyncSink
import NATSTransport

extension NATSStreamOptions {
    /// Follows `watch`'s subject of the stream on the servers `from` names (`--from`) instead of
    /// the daemon, from `start` (a restored list, a cursor, or an empty mirror): the one stream
    /// follower of `mirror`, `subscribe` and `exec --from`.
    ///
    /// Each verified snapshot and changeset goes to `handle` as the ``MirrorUpdate`` a socket
    /// subscription would have delivered for it, so the commands print, run and record exactly
    /// what they do over the socket; after `handle` returns, the stream sequence is recorded in
    /// ``StreamPlace`` beside `state` (when given), from which a restart reads on. A message
    /// that cannot be used is said on standard error. `caughtUp` is called with the mirror each
    /// time it holds the stream's last message; following ends when it returns `false`.
    /// `delivery` as over the socket: with chunks, each snapshot chunk goes to `handle` first
    /// (``MirrorUpdate/Event/snapshotChunk(_:)``), so that a large list is written as it streams.
    func follow(
        _ watch: String, from: String, as client: String, start: MirroredList, state: StateJournal?,
        delivery: SnapshotDelivery = .assembled,
        handle: (MirrorUpdate) async throws -> Void,
        caughtUp: (MirroredList) async throws -> Bool = { _ in true }
    ) async throws {
        let place = state.map(StreamPlace.init(beside:))
        let follower = try await self.follower(of: watch, from: from, as: client)
        try await Self.readingStream {
            try await follower.follow(from: start, after: place?.sequence(for: start.cursor) ?? 0, delivery: delivery) { update in
                switch update {
                case .snapshotChunk(let chunk, let mirror, _):
                    try await handle(MirrorUpdate(event: .snapshotChunk(chunk), mirror: mirror, phase: .streaming, isCurrent: false))
                case .snapshot(let mirror, let sequence, _):
                    guard let cursor = mirror.cursor else { return true }
                    try await handle(MirrorUpdate(event: .snapshot(cursor: cursor), mirror: mirror, phase: .streaming, isCurrent: false))
                    try place?.save(sequence, cursor: cursor)
                case .changeset(let changeset, let mirror, let sequence):
                    try await handle(MirrorUpdate(event: .changeset(changeset), mirror: mirror, phase: .streaming, isCurrent: false))
                    try place?.save(sequence, cursor: changeset.cursor)
                case .skipped(let reason, _):
                    OutputWriter.writeStandardError("listsync: \(watch): \(reason)\n")
                case .caughtUp(let mirror):
                    return try await caughtUp(mirror)
                }
                return true
            }
        }
    }
}
