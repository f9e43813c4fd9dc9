import ListSyncClient
import ListSyncProtocol
import ListSyncSink
import NATSTransport

extension MirrorCommand {
    /// The place in the stream a mirror fed by NATS reached: `STATE.nats` beside its state, one
    /// entry `SEQUENCE CURSOR` (the stream sequence of the last message applied and the cursor
    /// it left the list at), written after the state. Read back only when its cursor is the
    /// restored list's: otherwise the stream is read from its start again, and everything up to
    /// the list's cursor passed over.
    struct StreamPlace {
        let file: StateJournal

        /// The sequence to read after, for a list restored at `cursor`.
        func sequence(for cursor: Cursor?) -> UInt64 {
            guard let cursor, case .entries(let entries, _, _) = self.file.read(), let entry = entries.last else { return 0 }
            let fields = String(decoding: entry, as: UTF8.self).split(separator: " ")
            guard fields.count == 2, Cursor(String(fields[1])) == cursor, let sequence = UInt64(fields[0]) else { return 0 }
            return sequence
        }

        /// Records that the list is at `cursor` after the message at `sequence`.
        func save(_ sequence: UInt64, cursor: Cursor) throws(ClientFailure) {
            do {
                try self.file.replace(with: [Array("\(sequence) \(cursor)".utf8)])
            } catch {
                throw .data("\(error)")
            }
        }
    }

    /// Follows the watch's subject of the stream on the servers `from` names (`--from`) instead
    /// of the daemon, from `start` (the restored list), saving each version with `save`.
    func followStream(
        from: String, start: MirroredList, state: StateJournal,
        save: (MirroredList, ChangesetMessage?) throws -> Void
    ) async throws {
        let place = StreamPlace(file: StateJournal(path: state.path + ".nats"))
        let follower = try self.nats.follower(of: self.name, from: from, as: "listsync mirror \(self.name)")
        do {
            try await follower.follow(from: start, after: place.sequence(for: start.cursor)) { update in
                switch update {
                case .snapshot(let mirror, let sequence):
                    try save(mirror, nil)
                    if let cursor = mirror.cursor { try place.save(sequence, cursor: cursor) }
                case .changeset(let changeset, let mirror, let sequence):
                    try save(mirror, changeset)
                    try place.save(sequence, cursor: changeset.cursor)
                case .skipped(let reason, _):
                    OutputWriter.writeStandardError("listsync: \(self.name): \(reason)\n")
                case .caughtUp(let mirror):
                    if self.once, mirror.hasList { return false }
                }
                return true
            }
        } catch let error as NATSError {
            throw ClientFailure.data("\(error)")
        }
    }
}
