import DurableFiles
import ListSyncClient
import ListSyncProtocol

/// What `mirror` or `exec` keeps in its ``StateJournal`` to resume after its own restart, and how
/// it keeps it current at a cost proportional to each change.
///
/// A list is kept as a journal: the `snapshot` messages of the whole list, an entry per chunk (what `subscribe
/// --format ndjson` prints for it), then the `changeset` messages applied since, one entry each.
/// A changeset is appended (O(size of the change)); the file is rewritten with a new snapshot only
/// after a snapshot, after a gap in what was recorded, or once the changesets appended outweigh
/// the snapshot or number ``changesetsBeforeRewrite`` — so the file stays under about twice the
/// list's size. A restart replays the journal, checking each changeset's digest (O(*n*) each), so
/// it resumes with a verified list at the cost of at most that many changesets applied live.
struct ClientState {
    /// What a client keeps.
    enum Kind {
        /// The mirror's whole list at its cursor, with its values, hashes and digest, as a
        /// journal. `mirror` keeps this, so a restarted mirror holds a verified list and resumes
        /// with the changesets it missed.
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

    let file: StateJournal
    let kind: Kind
    /// The cursor the file is at; `nil` while it holds nothing usable.
    private var recorded: Cursor?
    /// The size of the file's snapshot entry, and of the changeset entries after it.
    private var snapshotBytes = 0
    private var changesetBytes = 0
    private var changesets = 0

    /// The changesets appended after a snapshot before the file is rewritten: a bound on a
    /// restart's replay, whose digest checks cost O(*n*) each, while a rewrite costs O(*n*) only
    /// once per that many changesets.
    static let changesetsBeforeRewrite = 32

    init(file: StateJournal, kind: Kind) {
        self.file = file
        self.kind = kind
    }

    /// Reads the state kept for `watch`. A state that cannot be read, does not parse, is another
    /// watch's or (for a list) does not match its digests is set aside
    /// (``StateJournal/setAside(because:then:)``) and the client starts over; an unfinished last
    /// entry (a crash while it was appended) is cut off and the state before it used.
    ///
    /// - Complexity: O(*n* + changes) for a list: its snapshot is parsed and the changesets after
    ///   it applied, each with its digest checked.
    mutating func restore(of watch: String) -> Resumption {
        let entries: JournalEntries
        let unfinishedAfter: Int?
        let legacy: Bool
        switch self.file.read() {
        case .absent: return .fresh
        case .unreadable(let reason):
            self.file.setAside(because: reason, then: "starting from a snapshot")
            return .lost
        case .entries(let read, let unfinished, let isLegacy):
            (entries, unfinishedAfter, legacy) = (read, unfinished, isLegacy)
        }
        do throws(StateProblem) {
            guard !entries.isEmpty else {
                throw StateProblem(reason: unfinishedAfter == nil ? "empty" : "its only entry is cut short or does not match its checksum")
            }
            let (mirror, snapshotEntries) = try self.mirror(from: entries, of: watch)
            // Cut off only once the entries before it proved good: a state set aside is kept whole.
            if let unfinishedAfter { self.file.dropUnfinishedEntry(keeping: unfinishedAfter) }
            // A journal of the builds before is replaced whole at the next save, never appended to.
            self.recorded = legacy ? nil : mirror.cursor
            self.snapshotBytes = (0..<snapshotEntries).reduce(0) { $0 + entries.size(of: $1) + StateJournal.entryOverhead }
            self.changesetBytes = (snapshotEntries..<entries.count).reduce(0) { $0 + entries.size(of: $1) + StateJournal.entryOverhead }
            self.changesets = entries.count - snapshotEntries
            return .resumed(mirror)
        } catch {
            self.file.setAside(because: error.reason, then: "starting from a snapshot")
            return .lost
        }
    }

    /// Records `mirror` durably, `changeset` being what was last applied to it (`nil` after a
    /// snapshot); nothing while the mirror has no cursor (or, for a list, no list).
    ///
    /// - Complexity: O(size of `changeset`) when it is appended; O(*n*) when the list is
    ///   written whole.
    mutating func save(_ mirror: MirroredList, after changeset: ChangesetMessage?) throws(SystemCallError) {
        guard let cursor = mirror.cursor else { return }
        switch self.kind {
        case .cursor:
            try self.file.replace(with: [Array("\(cursor) \(mirror.watch)".utf8)])
        case .list:
            if let changeset, let recorded, changeset.cursor.epoch == recorded.epoch, changeset.prevSeq == recorded.seq,
                self.changesetBytes < self.snapshotBytes, self.changesets < Self.changesetsBeforeRewrite
            {
                let line = ServerMessage.changeset(changeset).encoded()
                try self.file.append(line)
                self.changesetBytes += line.count + Self.lineOverhead
                self.changesets += 1
            } else {
                guard mirror.hasList else { return }
                // The snapshot's chunks, each an entry written as it is made: never the whole
                // list as one line in memory.
                var snapshotBytes = 0
                try self.file.replace { entry in
                    try mirror.writeSnapshotLines { line in
                        try entry(line)
                        snapshotBytes += line.count + Self.lineOverhead
                    }
                }
                self.snapshotBytes = snapshotBytes
                self.changesetBytes = 0
                self.changesets = 0
            }
        }
        self.recorded = cursor
    }

    /// The bytes an entry adds to its line (which ends with its line end, not kept): its frame
    /// header.
    private static let lineOverhead = StateJournal.entryOverhead - 1

    /// Why a state cannot be used.
    private struct StateProblem: Error {
        let reason: String
    }

    /// The mirror the entries hold, and how many entries its snapshot takes.
    private func mirror(from entries: JournalEntries, of watch: String) throws(StateProblem) -> (MirroredList, snapshotEntries: Int) {
        switch self.kind {
        case .cursor:
            guard entries.count == 1 else { throw StateProblem(reason: "not one cursor and a watch's name") }
            return (try Self.cursor(from: try Self.body(of: entries, at: 0), of: watch), 1)
        case .list:
            var (mirror, snapshotEntries) = try Self.list(from: entries, of: watch)
            for index in snapshotEntries..<entries.count {
                guard case .changeset(let changeset) = try Self.message(from: try Self.body(of: entries, at: index)) else {
                    throw StateProblem(reason: "entry \(index + 1): not a changeset")
                }
                do {
                    try mirror.apply(changeset)
                } catch {
                    throw StateProblem(reason: "entry \(index + 1): \(error)")
                }
            }
            return (mirror, snapshotEntries)
        }
    }

    /// Entry `index`'s body, read from the file.
    private static func body(of entries: JournalEntries, at index: Int) throws(StateProblem) -> ArraySlice<UInt8> {
        do {
            return try entries.body(at: index)
        } catch {
            throw StateProblem(reason: "entry \(index + 1): \(error)")
        }
    }

    private static func message(from line: ArraySlice<UInt8>) throws(StateProblem) -> ServerMessage? {
        do {
            return try MessageParser.serverMessage(ofLine: line)
        } catch {
            throw StateProblem(reason: "not a mirror's state: \(error)")
        }
    }

    /// The list of the journal's first entries: its snapshot, chunk 0 to the last chunk, one
    /// entry each (one entry, chunk 0 and last, in the journals of the builds before).
    ///
    /// The digest is the version the mirror's connection spoke when it saved the state: 2, or 1
    /// for a state saved at protocol version 1 (the changesets after it are of the same).
    private static func list(from entries: JournalEntries, of watch: String) throws(StateProblem) -> (MirroredList, snapshotEntries: Int) {
        var problem = StateProblem(reason: "no digest version")
        versions: for version in [DigestVersion.v2, .v1] {
            var mirror = MirroredList(watch: watch)
            mirror.useDigestVersion(version)
            for index in 0..<entries.count {
                guard case .snapshot(let chunk) = try Self.message(from: try Self.body(of: entries, at: index)) else {
                    throw StateProblem(reason: index == 0 ? "not a mirror's state: no snapshot message" : "entry \(index + 1): not the snapshot's next chunk")
                }
                do {
                    if try mirror.apply(chunk) { return (mirror, index + 1) }
                } catch {
                    problem = StateProblem(reason: index == 0 ? "\(error)" : "entry \(index + 1): \(error)")
                    // Only a digest that does not match may be the other version's.
                    guard error.digests != nil else { break versions }
                    continue versions
                }
            }
            throw StateProblem(reason: "the snapshot's last chunk is missing")
        }
        throw problem
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
