import ListDiff
import ListFormats
import ListSyncProtocol

/// A subscriber's copy of a watched list, built from snapshots and kept by applying changesets —
/// with its own reading of the batch-update rules, independent of `ListDiff`'s, so a test that
/// ends with the mirror equal to the file checks the daemon's stages, not just their round trip.
struct TestMirror: Equatable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Section: Equatable {
        var section: ChangesetStage.Section
        var records: [ChangesetStage.Record]
    }

    var sections: [Section]
    var sectioned: Bool
    var cursor: Cursor
    /// The columns, which the digest covers.
    var schema: ListSchema
    /// The digest definition of the connection's protocol version.
    var digestVersion: DigestVersion

    /// The mirror a complete snapshot describes; checks its `digestVersion` digest.
    init(snapshot chunks: [SnapshotChunk], digestVersion: DigestVersion = .v1) throws {
        self.digestVersion = digestVersion
        guard let first = chunks.first, let last = chunks.last, last.last else { throw Failure(description: "incomplete snapshot") }
        self.sectioned = first.sectioned
        self.cursor = first.cursor
        self.schema = first.schema
        self.sections = []
        for (number, chunk) in chunks.enumerated() {
            guard chunk.chunk == number, chunk.cursor == first.cursor else { throw Failure(description: "chunk \(number) out of order") }
            for part in chunk.sections {
                if part.index == self.sections.count {
                    self.sections.append(Section(section: part.section, records: part.records))
                } else if part.index == self.sections.count - 1 {
                    self.sections[part.index].records += part.records
                } else {
                    throw Failure(description: "chunk \(number) jumps to section \(part.index)")
                }
            }
        }
        guard last.digest == self.digest else { throw Failure(description: "snapshot digest mismatch") }
    }

    /// Applies a changeset that must follow the mirror's cursor; checks the digest.
    mutating func apply(_ changeset: ChangesetMessage) throws {
        guard changeset.prevSeq == self.cursor.seq, changeset.cursor.seq == self.cursor.seq + 1 else {
            throw Failure(description: "changeset \(changeset.cursor) does not follow \(self.cursor)")
        }
        for (number, stage) in changeset.stages.enumerated() {
            do {
                try self.apply(stage)
            } catch {
                throw Failure(description: "stage \(number) of \(changeset.cursor): \(error)")
            }
        }
        self.cursor = changeset.cursor
        if let update = changeset.schema { self.schema = update.schema }
        guard changeset.digest == self.digest else { throw Failure(description: "digest mismatch after \(changeset.cursor)") }
    }

    /// The digest of the mirrored list.
    var digest: ListDigest {
        var builder = ListDigest.Builder(schema: self.schema, version: self.digestVersion)
        for section in self.sections {
            builder.beginSection(modelHash: section.section.hash, recordCount: section.records.count)
            for record in section.records { builder.addRecord(record.hash) }
        }
        return builder.finish()
    }

    /// The list's values, shaped like `ParsedList.document`.
    var document: ListDocument {
        guard self.sectioned else { return .records(self.sections.flatMap { $0.records.map(\.value) }) }
        return .sections(self.sections.map { ListDocument.Section(value: $0.section.model, records: $0.records.map(\.value)) })
    }

    /// One stage, as UIKit's `performBatchUpdates` reads it: deletions, updates and move sources
    /// at positions before the stage; insertions and move targets at positions after it; whatever
    /// is not named keeps its relative order in the remaining places.
    private mutating func apply(_ stage: ChangesetStage) throws {
        var before = self.sections
        func check(_ path: ElementPath) throws {
            guard before.indices.contains(path.section), before[path.section].records.indices.contains(path.element) else {
                throw Failure(description: "no element at \(path)")
            }
        }
        for update in stage.elementUpdated {
            try check(update.path)
            before[update.path.section].records[update.path.element] = update.record
        }
        var removed = Set(stage.elementDeleted)
        var arriving: [ElementPath: ChangesetStage.Record] = [:]
        for move in stage.elementMoved {
            try check(move.source)
            removed.insert(move.source)
            arriving[move.target] = before[move.source.section].records[move.source.element]
        }
        for path in stage.elementDeleted { try check(path) }
        for insert in stage.elementInserted {
            arriving[insert.path] = insert.record
        }
        var kept: [Section] = before.enumerated().map { index, section in
            Section(
                section: section.section,
                records: section.records.enumerated().filter { !removed.contains(ElementPath(element: $0.offset, section: index)) }.map(\.element))
        }
        // Sections.
        let leaving = Set(stage.sectionDeleted).union(stage.sectionMoved.map(\.source))
        guard leaving.allSatisfy(before.indices.contains) else { throw Failure(description: "a section operation names no section") }
        let count = before.count - stage.sectionDeleted.count + stage.sectionInserted.count
        var placed = [Section?](repeating: nil, count: count)
        var fresh = Set<Int>()
        for insert in stage.sectionInserted {
            guard placed.indices.contains(insert.index), placed[insert.index] == nil else { throw Failure(description: "bad section insert \(insert.index)") }
            placed[insert.index] = Section(section: insert.section, records: insert.records)
            fresh.insert(insert.index)
        }
        for move in stage.sectionMoved {
            guard placed.indices.contains(move.target), placed[move.target] == nil else { throw Failure(description: "bad section move \(move)") }
            placed[move.target] = kept[move.source]
        }
        var remaining = kept.indices.filter { !leaving.contains($0) }.makeIterator()
        for index in placed.indices where placed[index] == nil {
            guard let next = remaining.next() else { throw Failure(description: "too few sections") }
            placed[index] = kept[next]
        }
        guard remaining.next() == nil else { throw Failure(description: "too many sections") }
        kept = placed.compactMap { $0 }
        // Elements arriving in each section after the stage.
        for index in kept.indices where !fresh.contains(index) {
            let targets = arriving.filter { $0.key.section == index }
            var slots = [ChangesetStage.Record?](repeating: nil, count: kept[index].records.count + targets.count)
            for (path, record) in targets {
                guard slots.indices.contains(path.element), slots[path.element] == nil else { throw Failure(description: "bad element target \(path)") }
                slots[path.element] = record
            }
            var rest = kept[index].records.makeIterator()
            for slot in slots.indices where slots[slot] == nil {
                slots[slot] = rest.next()
            }
            kept[index].records = slots.compactMap { $0 }
        }
        guard arriving.keys.allSatisfy({ kept.indices.contains($0.section) && !fresh.contains($0.section) }) else {
            throw Failure(description: "an element arrives in a section that is not there")
        }
        for update in stage.sectionUpdated {
            guard kept.indices.contains(update.index) else { throw Failure(description: "bad section update \(update.index)") }
            kept[update.index].section = update.section
        }
        self.sections = kept
    }
}
