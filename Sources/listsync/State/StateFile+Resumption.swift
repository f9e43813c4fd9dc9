import ListSyncClient
import ListSyncProtocol

extension StateFile {
    /// What a client keeps in its state file.
    enum Kind {
        /// The mirror's whole list at its cursor, with its values, hashes and digest: the one
        /// `snapshot` message `subscribe --format ndjson` prints for it. `mirror` keeps this, so a
        /// restarted mirror holds a verified list and resumes with the changesets it missed.
        case list
        /// The cursor alone, `EPOCH:SEQ WATCH`: what `exec` keeps, the last changeset whose
        /// command succeeded.
        case cursor
    }

    /// Where a client starts from.
    enum Resumption {
        /// No state yet: start with a snapshot.
        case fresh
        /// The state's mirror (a verified list, or just a cursor): resume after its cursor.
        case resumed(MirroredList)
        /// The state could not be used and was set aside: start with a snapshot, knowing that
        /// an earlier run got somewhere.
        case lost

        /// The mirror to subscribe with: the restored one, or an empty one of `watch`.
        func mirror(of watch: String) -> MirroredList {
            guard case .resumed(let mirror) = self else { return MirroredList(watch: watch) }
            return mirror
        }
    }

    /// Reads the state of `kind` kept for `watch`. A state that cannot be read, does not parse,
    /// is another watch's or (for a list) does not match its own digest is set aside
    /// (``setAside(because:then:)``) and the client starts over.
    ///
    /// - Complexity: O(*n*) for a list: it is parsed and its digest computed.
    func restore(_ kind: Kind, of watch: String) -> Resumption {
        let bytes: [UInt8]
        switch self.read() {
        case .absent: return .fresh
        case .unreadable(let reason):
            self.setAside(because: reason, then: "starting from a snapshot")
            return .lost
        case .bytes(let read): bytes = read
        }
        do throws(StateProblem) {
            let line = bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...]
            switch kind {
            case .list: return .resumed(try Self.list(from: line, of: watch))
            case .cursor: return .resumed(try Self.cursor(from: line, of: watch))
            }
        } catch {
            self.setAside(because: error.reason, then: "starting from a snapshot")
            return .lost
        }
    }

    /// Saves what `kind` keeps of `mirror`; nothing while the mirror has no cursor (or, for a
    /// list, no list).
    func save(_ kind: Kind, of mirror: MirroredList) throws(AtomicFileWriter.Failure) {
        switch kind {
        case .list:
            guard let line = UpdateLines.snapshotLine(of: mirror) else { return }
            try self.write(line)
        case .cursor:
            guard let cursor = mirror.cursor else { return }
            try self.write(Array("\(cursor) \(mirror.watch)\n".utf8))
        }
    }

    /// Why a state cannot be used.
    private struct StateProblem: Error {
        let reason: String
    }

    private static func list(from line: ArraySlice<UInt8>, of watch: String) throws(StateProblem) -> MirroredList {
        let message: ServerMessage?
        do {
            message = try MessageParser.serverMessage(ofLine: line)
        } catch {
            throw StateProblem(reason: "not a mirror's state: \(error)")
        }
        guard case .snapshot(let chunk) = message, chunk.chunk == 0, chunk.last else {
            throw StateProblem(reason: "not a mirror's state: no snapshot message")
        }
        var mirror = MirroredList(watch: watch)
        do {
            try mirror.apply(chunk)
        } catch {
            throw StateProblem(reason: "\(error)")
        }
        return mirror
    }

    private static func cursor(from line: ArraySlice<UInt8>, of watch: String) throws(StateProblem) -> MirroredList {
        let text = String(decoding: line, as: UTF8.self)
        guard let space = text.firstIndex(of: " "), let cursor = Cursor(String(text[..<space])) else {
            throw StateProblem(reason: "not a cursor and a watch's name")
        }
        let kept = text[text.index(after: space)...]
        guard kept == watch else { throw StateProblem(reason: "kept for watch \(kept), not \(watch)") }
        return MirroredList(watch: watch, following: cursor)
    }
}
