import ListSyncProtocol

/// The place in the stream a client fed by NATS (`--from`) reached: `STATE.nats` beside its
/// state, one entry `SEQUENCE CURSOR` (the stream sequence of the last message handled and the
/// cursor it left the client at), written after the state. Read back only when its cursor is the
/// restored state's: otherwise the stream is read from its start (or latest snapshot) again, and
/// everything up to the state's cursor passed over.
struct StreamPlace {
    let file: StateJournal

    /// The place kept beside `state`.
    init(beside state: StateJournal) {
        self.file = StateJournal(path: state.path + ".nats")
    }

    /// The sequence to read after, for a client restored at `cursor`.
    func sequence(for cursor: Cursor?) -> UInt64 {
        guard let cursor, case .entries(let entries, _, _) = self.file.read(), !entries.isEmpty,
            let entry = try? entries.body(at: entries.count - 1)
        else { return 0 }
        let fields = String(decoding: entry, as: UTF8.self).split(separator: " ")
        guard fields.count == 2, Cursor(String(fields[1])) == cursor, let sequence = UInt64(fields[0]) else { return 0 }
        return sequence
    }

    /// Records that the client is at `cursor` after the message at `sequence`.
    func save(_ sequence: UInt64, cursor: Cursor) throws(ClientFailure) {
        do {
            try self.file.replace(with: [Array("\(sequence) \(cursor)".utf8)])
        } catch {
            throw .data("\(error)")
        }
    }
}
