import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol

extension SinkList {
    /// Applies `changeset` to the list in memory and returns the rows to write: each record that
    /// was deleted, inserted, updated or moved, once, with new order keys only for the rows that
    /// arrived or moved (between the keys of their neighbours that stayed).
    ///
    /// - Throws: ``SinkError/diverged(_:)`` when the changeset does not follow the list's cursor,
    ///   names a position the list does not have, or leads to another digest than the daemon's.
    ///   The list is then unusable: the sink reloads it or takes a snapshot.
    /// - Complexity: O(changes) writes; in memory, the order keys' scan and the digest: O(*n*)
    ///   at protocol version 1, the kept ``ListDigestTree`` updated at version 2 (O(changes +
    ///   *n*/64), after an O(*n*) build at the first changeset after a load).
    mutating func apply(_ changeset: ChangesetMessage) throws(SinkError) -> SinkWrites {
        guard changeset.cursor.epoch == self.cursor.epoch, changeset.prevSeq == self.cursor.seq else {
            throw .diverged("changeset \(changeset.cursor) does not follow \(self.cursor)")
        }
        var changes = Changes()
        var sectionsChanged = false
        // At version 2, the tree of the list before (built once after a load) is updated
        // between the items the stages left alone.
        var tree = self.digestVersion == .v2 ? self.tree ?? ListDigestTree(schema: self.schema, digestSections: self.sections) : nil
        self.tree = nil
        var span = DigestChangeSpan()
        for (number, stage) in changeset.stages.enumerated() {
            let sourceCounts = tree == nil ? [] : DigestChangeSpan.recordCounts(of: self.sections)
            try self.apply(stage, number: number, to: &changes)
            if tree != nil {
                span.note(stage, sourceCounts: sourceCounts, targetCounts: DigestChangeSpan.recordCounts(of: self.sections))
            }
            sectionsChanged = sectionsChanged || !stage.sectionDeleted.isEmpty || !stage.sectionInserted.isEmpty
                || !stage.sectionMoved.isEmpty || !stage.sectionUpdated.isEmpty
        }
        // The digest covers the columns: the new schema counts in it.
        let schema = changeset.schema?.schema ?? self.schema
        tree?.update(schema: schema, sections: self.sections, sharedPrefix: span.sharedPrefix, sharedSuffix: span.sharedSuffix)
        let digest = tree?.digest ?? Self.digest(schema: schema, of: self.sections, version: self.digestVersion)
        guard digest == changeset.digest else {
            throw .diverged("the digest after \(changeset.cursor) is \(digest), the daemon's \(changeset.digest)")
        }
        self.tree = tree
        var writes = SinkWrites()
        writes.deleted = changes.deleted
        writes.schema = changeset.schema
        if sectionsChanged { writes.sections = self.sections.map(\.model) }
        let places = self.placeArrivals(changes)
        for (rowID, record) in changes.values.sorted(by: { $0.key < $1.key }) {
            let row = SinkWrites.Row(rowID: rowID, record: record, place: places[rowID])
            if changes.inserted.contains(rowID) { writes.inserted.append(row) } else { writes.updated.append(row) }
        }
        for (rowID, place) in places.sorted(by: { $0.key < $1.key }) where changes.values[rowID] == nil {
            writes.moved.append((rowID, place))
        }
        self.schema = schema
        self.cursor = changeset.cursor
        return writes
    }

    /// What the stages of one changeset did, by row.
    private struct Changes {
        /// The latest record of each row inserted or updated.
        var values: [Int64: ChangesetStage.Record] = [:]
        /// Rows new in this changeset.
        var inserted: Set<Int64> = []
        /// Rows that were in the table and left.
        var deleted: [Int64] = []
        /// Rows that need a place (order key and section): inserted or moved.
        var dirty: Set<Int64> = []
        /// Where the rows of `dirty` are, after the stage that placed them: single positions and
        /// whole sections (inserted, or with a new model)…
        var marks: [ElementPath] = []
        var markedSections: Set<Int> = []
        /// …as long as no later stage moved things: otherwise every section is scanned.
        var marksValid = true
    }

    private mutating func apply(_ stage: ChangesetStage, number: Int, to changes: inout Changes) throws(SinkError) {
        let movesSections = !stage.sectionDeleted.isEmpty || !stage.sectionInserted.isEmpty || !stage.sectionMoved.isEmpty
        let movesElements = movesSections || !stage.elementDeleted.isEmpty || !stage.elementInserted.isEmpty || !stage.elementMoved.isEmpty
        if (movesElements && !changes.marks.isEmpty) || (movesSections && !changes.markedSections.isEmpty) { changes.marksValid = false }
        var tagged = stage
        tagged.elementUpdated = []
        for update in stage.elementUpdated {
            let rowID = try self.rowID(at: update.path)
            changes.values[rowID] = update.record
            tagged.elementUpdated.append(.init(path: update.path, record: Self.tag(rowID, hash: update.record.hash)))
        }
        for path in stage.elementDeleted {
            self.remove(try self.rowID(at: path), from: &changes)
        }
        for index in stage.sectionDeleted {
            guard self.sections.indices.contains(index) else { throw .diverged("no section \(index) to delete") }
            for record in self.sections[index].records { self.remove(Self.rowID(of: record), from: &changes) }
        }
        tagged.elementInserted = stage.elementInserted.map { inserted in
            .init(path: inserted.path, record: self.arrive(inserted.record, in: &changes))
        }
        tagged.sectionInserted = stage.sectionInserted.map { inserted in
            .init(index: inserted.index, section: inserted.section, records: inserted.records.map { self.arrive($0, in: &changes) })
        }
        do {
            try tagged.apply(to: &self.sections, number: number)
        } catch {
            throw .diverged("\(error)")
        }
        for move in stage.elementMoved {
            changes.dirty.insert(try self.rowID(at: move.target))
        }
        changes.marks += stage.elementInserted.map(\.path) + stage.elementMoved.map(\.target)
        changes.markedSections.formUnion(stage.sectionInserted.map(\.index))
        for index in stage.sectionUpdated.map(\.index) where self.sections.indices.contains(index) {
            // The rows' section column names the model.
            for record in self.sections[index].records { changes.dirty.insert(Self.rowID(of: record)) }
            changes.markedSections.insert(index)
        }
    }

    /// A new row for `record`.
    private mutating func arrive(_ record: ChangesetStage.Record, in changes: inout Changes) -> ChangesetStage.Record {
        let rowID = self.nextRowID
        self.nextRowID += 1
        changes.values[rowID] = record
        changes.inserted.insert(rowID)
        changes.dirty.insert(rowID)
        return Self.tag(rowID, hash: record.hash)
    }

    private mutating func remove(_ rowID: Int64, from changes: inout Changes) {
        changes.values[rowID] = nil
        changes.dirty.remove(rowID)
        self.orders[rowID] = nil
        if changes.inserted.remove(rowID) == nil { changes.deleted.append(rowID) }
    }

    private func rowID(at path: ElementPath) throws(SinkError) -> Int64 {
        guard self.sections.indices.contains(path.section), self.sections[path.section].records.indices.contains(path.element) else {
            throw .diverged("no record at [\(path.section), \(path.element)]")
        }
        return Self.rowID(of: self.sections[path.section].records[path.element])
    }

    /// Gives each row of `changes.dirty` an order key between its nearest neighbours that stay,
    /// runs of them evenly; returns their places. Looks only at the marked positions and
    /// sections when they are still valid (O(changes)), else scans every section.
    private mutating func placeArrivals(_ changes: Changes) -> [Int64: SinkWrites.Place] {
        guard !changes.dirty.isEmpty else { return [:] }
        var places: [Int64: SinkWrites.Place] = [:]
        guard changes.marksValid else {
            for section in self.sections.indices { self.placeRuns(in: section, among: nil, changes.dirty, into: &places) }
            return places
        }
        for section in changes.markedSections.sorted() { self.placeRuns(in: section, among: nil, changes.dirty, into: &places) }
        var marked: [Int: [Int]] = [:]
        for mark in changes.marks where !changes.markedSections.contains(mark.section) {
            marked[mark.section, default: []].append(mark.element)
        }
        for (section, elements) in marked { self.placeRuns(in: section, among: elements, changes.dirty, into: &places) }
        return places
    }

    /// Places the runs of dirty rows of `section`: those starting at `among` (positions), or
    /// found by scanning the whole section when `nil`.
    private mutating func placeRuns(
        in section: Int, among positions: [Int]?, _ dirty: Set<Int64>, into places: inout [Int64: SinkWrites.Place]
    ) {
        let records = self.sections[section].records
        let model = self.sections[section].model.model
        func isDirty(_ index: Int) -> Bool { dirty.contains(Self.rowID(of: records[index])) }
        var index = 0
        var candidates = (positions ?? []).sorted().makeIterator()
        while true {
            if positions == nil {
                while index < records.count, !isDirty(index) { index += 1 }
                guard index < records.count else { return }
            } else {
                guard let next = candidates.next() else { return }
                guard next >= index, records.indices.contains(next), isDirty(next) else { continue }
                index = next
            }
            var end = index
            while end < records.count, isDirty(end) { end += 1 }
            let lower = index > 0 ? self.orders[Self.rowID(of: records[index - 1])] : nil
            let upper = end < records.count ? self.orders[Self.rowID(of: records[end])] : nil
            let keys = OrderKey.keys(end - index, between: lower, and: upper)
            for (record, key) in zip(records[index..<end], keys) {
                let rowID = Self.rowID(of: record)
                self.orders[rowID] = key
                places[rowID] = SinkWrites.Place(section: model, order: key)
            }
            index = end
        }
    }
}
