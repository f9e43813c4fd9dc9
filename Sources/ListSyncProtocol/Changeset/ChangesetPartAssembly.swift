/// Puts the parts of a changeset (protocol version 2, *Changeset parts* in docs/PROTOCOL.md) back
/// into the ``ChangesetMessage`` the whole line would have carried, so that a mirror, a sink or a
/// command applies whole changesets and needs no part logic.
///
/// Parts must come in order, numbered from 0, all of one changeset; anything else — a part
/// missing, one of another changeset, a changeset cut off by a new part 0 — is a
/// ``ChangesetPartError``, a gap a subscriber resumes from its cursor (the client library's
/// `MirrorError.partsOutOfOrder`). The
/// parts held are bounded in bytes (the lines they came in): a partial changeset over
/// `maximumBytes` is dropped the same way.
public struct ChangesetPartAssembly: Sendable {
    /// The most bytes of part lines a partial changeset may hold.
    public let maximumBytes: Int
    /// The changeset so far: the parts' stages merged, the header of part 0.
    private var pending: ChangesetPartMessage?
    private var bytes = 0

    /// An assembly holding at most `maximumBytes` of part lines.
    public init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Whether a changeset is partly received.
    public var isEmpty: Bool { self.pending == nil }

    /// Drops a partly received changeset (after a resubscribe).
    public mutating func reset() {
        self.pending = nil
        self.bytes = 0
    }

    /// Takes `part`; the whole changeset once `part` is its last, else `nil`.
    ///
    /// - Throws: ``ChangesetPartError`` when `part` does not continue what is held or the held
    ///   bytes would exceed ``maximumBytes``; what was held is dropped.
    public mutating func add(_ part: ChangesetPartMessage) throws(ChangesetPartError) -> ChangesetMessage? {
        if let problem = self.problem(with: part) {
            self.reset()
            throw ChangesetPartError(cursor: part.cursor, part: part.part, reason: problem)
        }
        self.bytes += part.lineLength
        if var pending = self.pending {
            var stages = part.stages
            if part.continues, let first = stages.first, let last = pending.stages.popLast() {
                stages[0] = last.continued(by: first)
            }
            pending.stages += stages
            pending.part = part.part
            self.pending = pending
        } else {
            self.pending = part
        }
        guard part.last, let whole = self.pending else { return nil }
        self.reset()
        guard let digest = part.digest else {
            throw ChangesetPartError(cursor: part.cursor, part: part.part, reason: "the last part has no digest")
        }
        return ChangesetMessage(
            watch: whole.watch, cursor: whole.cursor, prevSeq: whole.prevSeq, stages: whole.stages, digest: digest, schema: part.schema)
    }

    /// Why `part` cannot follow what is held, if it cannot.
    private func problem(with part: ChangesetPartMessage) -> String? {
        if self.bytes + part.lineLength > self.maximumBytes {
            return "the parts held would exceed \(self.maximumBytes) bytes"
        }
        guard let pending = self.pending else {
            return part.part == 0 ? (part.continues ? "part 0 continues nothing" : nil) : "part 0 is missing"
        }
        guard part.watch == pending.watch, part.cursor == pending.cursor, part.prevSeq == pending.prevSeq else {
            return "changeset \(pending.cursor) ended after part \(pending.part)"
        }
        guard part.part == pending.part + 1 else {
            return "part \(pending.part + 1) is missing"
        }
        return nil
    }
}

extension ChangesetStage {
    /// This stage (a part's last) with `next` (the next part's first, which continues it) appended:
    /// each kind's entries after this stage's, and a `section_inserted` entry cut at the part
    /// boundary — the next part's first, with the same index as this stage's last — joined into one.
    func continued(by next: ChangesetStage) -> ChangesetStage {
        var merged = self
        var inserted = next.sectionInserted
        if let first = inserted.first, let last = merged.sectionInserted.last, first.index == last.index {
            merged.sectionInserted[merged.sectionInserted.count - 1].records += first.records
            inserted.removeFirst()
        }
        merged.sectionDeleted += next.sectionDeleted
        merged.sectionInserted += inserted
        merged.sectionMoved += next.sectionMoved
        merged.sectionUpdated += next.sectionUpdated
        merged.elementDeleted += next.elementDeleted
        merged.elementInserted += next.elementInserted
        merged.elementUpdated += next.elementUpdated
        merged.elementMoved += next.elementMoved
        merged.elementDeletedKeys += next.elementDeletedKeys
        merged.elementMovedKeys += next.elementMovedKeys
        return merged
    }
}
