import ListDiff
import ListFormats
import ListSyncProtocol

/// Applies one stage of a changeset to a mirror's sections, in place, as one batch update
/// (UIKit's `performBatchUpdates` reading of docs/PROTOCOL.md, *Changeset encoding*):
///
/// 1. updates replace records at their positions before the stage;
/// 2. deleted records and the sources of moved records leave their sections (positions before
///    the stage);
/// 3. deleted sections and the sources of moved sections leave; inserted and moved sections take
///    their indices after the stage, the others keep their order in the remaining places;
/// 4. inserted records and the targets of moved records take their positions after the stage,
///    the others keep their order in the remaining places;
/// 5. updated sections get their new model.
///
/// Every position is checked before it is used; a stage that names a position the list does not
/// have, or one position twice, throws a ``StageFailure``, and the ``MirrorUndoLog`` has what is
/// needed to undo the steps already taken.
///
/// - Complexity: O(changes), plus, for each section that loses or gains records, one shift of
///   its records per record removed or inserted when they are at most ``inPlaceLimit`` (no copy,
///   no reference counting: a small changeset to a long list costs a few `memmove`s), else
///   O(size) to rebuild it from slices of the old one (which the undo log keeps).
enum StageApplication {
    /// Up to this many records leaving or arriving in one section are removed or inserted one
    /// by one in place; more, and the section is rebuilt in one pass.
    static let inPlaceLimit = 8

    static func apply(
        _ stage: ChangesetStage, to sections: inout [MirroredSection], undo: inout MirrorUndoLog
    ) throws(StageFailure) {
        try self.updateRecords(stage.elementUpdated, in: &sections, undo: &undo)
        let movedRecords = try stage.elementMoved.map { move throws(StageFailure) in
            try Self.check(move.source, in: sections, "moved")
            return sections[move.source.section].records[move.source.element]
        }
        try self.removeRecords(stage, from: &sections, undo: &undo)
        let insertedSections = try self.placeSections(stage, in: &sections, undo: &undo)
        var arrivals: [Int: [(index: Int, record: ChangesetStage.Record)]] = [:]
        for inserted in stage.elementInserted {
            arrivals[inserted.path.section, default: []].append((inserted.path.element, inserted.record))
        }
        for (move, record) in zip(stage.elementMoved, movedRecords) {
            arrivals[move.target.section, default: []].append((move.target.element, record))
        }
        for (section, records) in arrivals {
            guard sections.indices.contains(section), !insertedSections.contains(section) else {
                throw StageFailure("a record arrives in section \(section), which is not a kept section after the stage")
            }
            try Self.insert(records, into: &sections, section: section, undo: &undo)
        }
        for updated in stage.sectionUpdated {
            guard sections.indices.contains(updated.index) else { throw StageFailure("no section \(updated.index) to update") }
            undo.record(.model(section: updated.index, sections[updated.index].model))
            sections[updated.index].model = updated.section
        }
    }

    private static func check(_ path: ElementPath, in sections: [MirroredSection], _ role: String) throws(StageFailure) {
        guard sections.indices.contains(path.section), sections[path.section].records.indices.contains(path.element) else {
            throw StageFailure("no record at [\(path.section), \(path.element)] to be \(role)")
        }
    }

    private static func updateRecords(
        _ updates: [ChangesetStage.PlacedRecord], in sections: inout [MirroredSection], undo: inout MirrorUndoLog
    ) throws(StageFailure) {
        for update in updates {
            try self.check(update.path, in: sections, "updated")
            undo.record(.record(update.path, sections[update.path.section].records[update.path.element]))
            sections[update.path.section].records[update.path.element] = update.record
        }
    }

    /// Step 2: deleted records and move sources leave their sections.
    private static func removeRecords(
        _ stage: ChangesetStage, from sections: inout [MirroredSection], undo: inout MirrorUndoLog
    ) throws(StageFailure) {
        var removals: [Int: [Int]] = [:]
        for path in stage.elementDeleted {
            try self.check(path, in: sections, "deleted")
            removals[path.section, default: []].append(path.element)
        }
        for move in stage.elementMoved {
            removals[move.source.section, default: []].append(move.source.element)
        }
        let deletedSections = Set(stage.sectionDeleted)
        for (section, var elements) in removals {
            guard !deletedSections.contains(section) else {
                throw StageFailure("records leave section \(section), which the same stage deletes")
            }
            elements.sort()
            if elements.count <= Self.inPlaceLimit {
                for (element, next) in zip(elements, elements.dropFirst()) where element == next {
                    throw StageFailure("record [\(section), \(element)] leaves twice")
                }
                // From the last, so that the positions before it stay valid.
                for element in elements.reversed() {
                    undo.record(.removed(ElementPath(element: element, section: section), sections[section].records.remove(at: element)))
                }
                continue
            }
            let before = sections[section].records
            var after: [ChangesetStage.Record] = []
            after.reserveCapacity(before.count - elements.count)
            var start = 0
            for element in elements {
                guard element >= start else { throw StageFailure("record [\(section), \(element)] leaves twice") }
                after.append(contentsOf: before[start..<element])
                start = element + 1
            }
            after.append(contentsOf: before[start...])
            undo.record(.records(section: section, before))
            sections[section].records = after
        }
    }

    /// Step 3: deleted and moved sections leave, inserted and moved ones take their places.
    ///
    /// - Returns: The indices of the inserted sections, which no record may arrive in.
    private static func placeSections(
        _ stage: ChangesetStage, in sections: inout [MirroredSection], undo: inout MirrorUndoLog
    ) throws(StageFailure) -> Set<Int> {
        guard !stage.sectionDeleted.isEmpty || !stage.sectionInserted.isEmpty || !stage.sectionMoved.isEmpty else { return [] }
        var leaving = Set<Int>()
        for index in stage.sectionDeleted + stage.sectionMoved.map(\.source) {
            guard sections.indices.contains(index), leaving.insert(index).inserted else {
                throw StageFailure("section \(index) cannot leave: it is not there, or leaves twice")
            }
        }
        let count = sections.count - stage.sectionDeleted.count + stage.sectionInserted.count
        var placed = [MirroredSection?](repeating: nil, count: count)
        for inserted in stage.sectionInserted {
            guard placed.indices.contains(inserted.index), placed[inserted.index] == nil else {
                throw StageFailure("section \(inserted.index) cannot be inserted: out of range or taken")
            }
            placed[inserted.index] = MirroredSection(model: inserted.section, records: inserted.records)
        }
        for move in stage.sectionMoved {
            guard placed.indices.contains(move.target), placed[move.target] == nil else {
                throw StageFailure("section \(move.source) cannot move to \(move.target): out of range or taken")
            }
            placed[move.target] = sections[move.source]
        }
        var staying = sections.indices.lazy.filter { !leaving.contains($0) }.makeIterator()
        for index in placed.indices where placed[index] == nil {
            guard let next = staying.next() else { throw StageFailure("too few sections to fill index \(index)") }
            placed[index] = sections[next]
        }
        let after = placed.compactMap { $0 }
        guard staying.next() == nil, after.count == count else { throw StageFailure("the section counts do not add up") }
        undo.record(.sections(sections))
        sections = after
        return Set(stage.sectionInserted.map(\.index))
    }

    /// Step 4: `arrivals` take their positions after the stage in `section`; the records that
    /// stay fill the other positions in order. A few are inserted in place, from the first
    /// position on (each then lands where it belongs); more rebuild the section.
    private static func insert(
        _ arrivals: [(index: Int, record: ChangesetStage.Record)], into sections: inout [MirroredSection], section: Int,
        undo: inout MirrorUndoLog
    ) throws(StageFailure) {
        guard arrivals.count <= Self.inPlaceLimit else {
            let before = sections[section].records
            let after = try Self.inserting(arrivals, into: before, section: section)
            undo.record(.records(section: section, before))
            sections[section].records = after
            return
        }
        var previous = -1
        for arrival in arrivals.sorted(by: { $0.index < $1.index }) {
            // Positions rise strictly, and each is within the records placed so far: exactly the
            // positions a rebuild accepts.
            guard arrival.index > previous, arrival.index <= sections[section].records.count else {
                throw StageFailure("no position [\(section), \(arrival.index)] for a record to arrive at, or it is taken twice")
            }
            sections[section].records.insert(arrival.record, at: arrival.index)
            undo.record(.inserted(ElementPath(element: arrival.index, section: section)))
            previous = arrival.index
        }
    }

    /// The records of a section rebuilt with `arrivals` at their positions after the stage and
    /// the records that stay in the other positions, in order.
    private static func inserting(
        _ arrivals: [(index: Int, record: ChangesetStage.Record)], into staying: [ChangesetStage.Record], section: Int
    ) throws(StageFailure) -> [ChangesetStage.Record] {
        let arrivals = arrivals.sorted { $0.index < $1.index }
        let count = staying.count + arrivals.count
        var after: [ChangesetStage.Record] = []
        after.reserveCapacity(count)
        var next = 0
        for arrival in arrivals {
            let before = arrival.index - after.count
            guard before >= 0, before <= staying.count - next, arrival.index < count else {
                throw StageFailure("no position [\(section), \(arrival.index)] for a record to arrive at, or it is taken twice")
            }
            after.append(contentsOf: staying[next..<next + before])
            next += before
            after.append(arrival.record)
        }
        after.append(contentsOf: staying[next...])
        return after
    }
}

/// Why a stage could not be applied: a position the list does not have, or one named twice.
public struct StageFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, with the position.
    public let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { self.reason }
}

extension ChangesetStage {
    /// Applies this stage to `sections` as one batch update, the way a ``MirroredList`` does: for
    /// consumers that replay a changeset stage by stage (to show what each stage removes, or to
    /// drive a batch-updating view).
    ///
    /// - Throws: ``StageFailure`` when the stage names a position `sections` do not have; the
    ///   sections may then be partly changed (a ``MirroredList`` rolls back, this does not).
    /// - Complexity: O(changes), plus a few shifts or a rebuild of each section that loses or
    ///   gains records (see ``StageApplication``).
    public func apply(to sections: inout [MirroredSection]) throws(StageFailure) {
        var undo = MirrorUndoLog()
        try StageApplication.apply(self, to: &sections, undo: &undo)
    }

    /// Whether the stage deletes, inserts, moves or updates sections.
    var hasSectionOperations: Bool {
        !self.sectionDeleted.isEmpty || !self.sectionInserted.isEmpty || !self.sectionMoved.isEmpty || !self.sectionUpdated.isEmpty
    }
}
