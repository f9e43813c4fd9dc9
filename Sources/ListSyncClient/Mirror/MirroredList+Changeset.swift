import ListDiff
import ListSyncProtocol

extension MirroredList {
    /// Applies a changeset: checks that it follows the mirror's version, applies its stages and
    /// checks the list's digest against the daemon's.
    ///
    /// A mirror that holds only a cursor (``init(watch:following:)``) checks the sequence and
    /// moves its cursor; it has no list to digest.
    ///
    /// - Throws: ``MirrorError``: ``MirrorError/sequenceGap(mirror:changeset:prevSeq:)`` when a
    ///   changeset was missed (resume with the cursor), or another case when the changeset
    ///   contradicts the list (resubscribe for a fresh snapshot). Either way the mirror is left at
    ///   its last verified version.
    /// - Complexity: O(changes) to apply, plus a shift of a section's records per record it
    ///   loses or gains (a rebuild of the section when many do), plus the digest: at protocol
    ///   version 2, O(changes + *n*/64) (the mirror's ``ListDigestTree``); at version 1, O(*n*).
    public mutating func apply(_ changeset: ChangesetMessage) throws(MirrorError) {
        try self.checkWatch(changeset.watch)
        if let pending = self.pendingSnapshot {
            self.pendingSnapshot = nil
            throw .snapshotOutOfOrder(
                cursor: pending.cursor, chunk: pending.nextChunk, reason: "changeset \(changeset.cursor) arrived before the last chunk")
        }
        switch self.basis {
        case .empty:
            throw .noBase(changeset: changeset.cursor)
        case .position(let cursor):
            try Self.checkSequence(of: changeset, after: cursor)
            self.basis = .position(changeset.cursor)
        case .list(var content):
            try Self.checkSequence(of: changeset, after: content.cursor)
            // Moved out of the mirror so the sections are changed in place, not copied.
            self.basis = .empty
            defer { self.basis = .list(content) }
            try content.apply(changeset)
        }
        self._checkInvariants()
    }

    private static func checkSequence(of changeset: ChangesetMessage, after cursor: Cursor) throws(MirrorError) {
        guard changeset.cursor.epoch == cursor.epoch else {
            throw .epochMismatch(mirror: cursor, changeset: changeset.cursor)
        }
        guard changeset.prevSeq == cursor.seq, changeset.cursor.seq == cursor.seq &+ 1 else {
            throw .sequenceGap(mirror: cursor, changeset: changeset.cursor, prevSeq: changeset.prevSeq)
        }
    }
}

extension MirrorContent {
    /// Applies every stage, then checks the digest of the result with the changeset's schema (or
    /// the current one when it has none); on any failure, rolls back to the list as it
    /// was.
    mutating func apply(_ changeset: ChangesetMessage) throws(MirrorError) {
        var undo = MirrorUndoLog()
        var span = DigestChangeSpan()
        for (number, stage) in changeset.stages.enumerated() {
            guard self.sectioned || !stage.hasSectionOperations else {
                undo.rollBack(&self.sections)
                throw .invalidStage(changeset: changeset.cursor, stage: number, reason: "a linear list has no sections to change")
            }
            let sourceCounts = self.tree == nil ? [] : DigestChangeSpan.recordCounts(of: self.sections)
            do throws(BatchUpdateViolation) {
                try StageApplication.apply(stage, number: number, to: &self.sections, undo: &undo)
            } catch {
                undo.rollBack(&self.sections)
                throw .invalidStage(changeset: changeset.cursor, stage: number, reason: error.reason)
            }
            if self.tree != nil {
                span.note(stage, sourceCounts: sourceCounts, targetCounts: DigestChangeSpan.recordCounts(of: self.sections))
            }
        }
        let schema = changeset.schema?.schema ?? self.schema
        // At version 2 the tree is updated between the items the stages left alone; at
        // version 1 the digest is computed over the whole list.
        var tree = self.tree
        tree?.update(schema: schema, sections: self.sections, sharedPrefix: span.sharedPrefix, sharedSuffix: span.sharedSuffix)
        let computed = tree?.digest ?? MirrorContent.digest(schema: schema, sections: self.sections, version: self.digestVersion)
        guard computed == changeset.digest else {
            undo.rollBack(&self.sections)
            throw .digestMismatch(cursor: changeset.cursor, expected: changeset.digest, computed: computed)
        }
        self.cursor = changeset.cursor
        self.digest = computed
        self.tree = tree
        self.schema = schema
    }
}
