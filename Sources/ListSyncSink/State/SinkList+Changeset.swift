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
    /// - Complexity: O(changes) writes; O(*n*) in memory for the digest and the order keys' scan.
    mutating func apply(_ changeset: ChangesetMessage) throws(SinkError) -> SinkWrites {
        guard changeset.cursor.epoch == self.cursor.epoch, changeset.prevSeq == self.cursor.seq else {
            throw .diverged("changeset \(changeset.cursor) does not follow \(self.cursor)")
        }
        var changes = Changes()
        var sectionsChanged = false
        for stage in changeset.stages {
            try self.apply(stage, to: &changes)
            sectionsChanged = sectionsChanged || !stage.sectionDeleted.isEmpty || !stage.sectionInserted.isEmpty
                || !stage.sectionMoved.isEmpty || !stage.sectionUpdated.isEmpty
        }
        let digest = self.digest
        guard digest == changeset.digest else {
            throw .diverged("the digest after \(changeset.cursor) is \(digest), the daemon's \(changeset.digest)")
        }
        var writes = SinkWrites()
        writes.deleted = changes.deleted
        writes.schema = changeset.schema
        if sectionsChanged { writes.sections = self.sections.map(\.model) }
        let places = self.placeArrivals(changes.dirty)
        for (rowID, record) in changes.values.sorted(by: { $0.key < $1.key }) {
            let row = SinkWrites.Row(rowID: rowID, record: record, place: places[rowID])
            if changes.inserted.contains(rowID) { writes.inserted.append(row) } else { writes.updated.append(row) }
        }
        for (rowID, place) in places.sorted(by: { $0.key < $1.key }) where changes.values[rowID] == nil {
            writes.moved.append((rowID, place))
        }
        if let schema = changeset.schema { self.schema = schema.schema }
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
    }

    private mutating func apply(_ stage: ChangesetStage, to changes: inout Changes) throws(SinkError) {
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
            try tagged.apply(to: &self.sections)
        } catch {
            throw .diverged("\(error)")
        }
        for move in stage.elementMoved {
            changes.dirty.insert(try self.rowID(at: move.target))
        }
        for index in stage.sectionUpdated.map(\.index) where self.sections.indices.contains(index) {
            // The rows' section column names the model.
            for record in self.sections[index].records { changes.dirty.insert(Self.rowID(of: record)) }
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

    /// Gives each row of `dirty` an order key between its nearest neighbours that stay, runs of
    /// them evenly; returns their places.
    private mutating func placeArrivals(_ dirty: Set<Int64>) -> [Int64: SinkWrites.Place] {
        guard !dirty.isEmpty else { return [:] }
        var places: [Int64: SinkWrites.Place] = [:]
        for section in self.sections {
            let rows = section.records.map(Self.rowID(of:))
            var index = 0
            while index < rows.count {
                guard dirty.contains(rows[index]) else {
                    index += 1
                    continue
                }
                var end = index
                while end < rows.count, dirty.contains(rows[end]) { end += 1 }
                let lower = index > 0 ? self.orders[rows[index - 1]] : nil
                let upper = end < rows.count ? self.orders[rows[end]] : nil
                let keys = OrderKey.keys(end - index, between: lower, and: upper)
                for (rowID, key) in zip(rows[index..<end], keys) {
                    self.orders[rowID] = key
                    places[rowID] = SinkWrites.Place(section: section.model.model, order: key)
                }
                index = end
            }
        }
        return places
    }
}
