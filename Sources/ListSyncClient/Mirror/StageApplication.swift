import ListDiff
import ListFormats
import ListSyncProtocol

/// Applies one stage of a changeset to a mirror's sections, in place, as one batch update
/// (UIKit's `performBatchUpdates` reading of docs/PROTOCOL.md, *Changeset encoding*).
///
/// The stage is first checked against ListDiff's batch-update rules — the ones its `validate`,
/// `apply` and sequential operations use — looking only at what it names; a stage that names a
/// position the list does not have, or one position twice, throws that
/// ``BatchUpdateViolation`` and changes nothing. Then, every position being valid:
///
/// 1. updates replace records, and updated sections get their new model, at their positions
///    before the stage;
/// 2. deleted records and the sources of moved records leave their sections (positions before
///    the stage);
/// 3. deleted sections and the sources of moved sections leave; inserted and moved sections take
///    their indices after the stage, the others keep their order in the remaining places (the
///    places the batch-update check worked out);
/// 4. inserted records and the targets of moved records take their positions after the stage,
///    the others keep their order in the remaining places.
///
/// The ``MirrorUndoLog`` has what is needed to undo the steps taken.
///
/// - Complexity: O(changes + sections), plus, for each section that loses or gains records, one
///   shift of its records per record removed or inserted when they are at most ``inPlaceLimit``
///   (no copy, no reference counting: a small changeset to a long list costs a few `memmove`s),
///   else O(size) to rebuild it from slices of the old one (which the undo log keeps).
enum StageApplication {
    /// Up to this many records leaving or arriving in one section are removed or inserted one
    /// by one in place; more, and the section is rebuilt in one pass.
    static let inPlaceLimit = 8

    /// Applies `stage`, the stage at offset `number` of its changeset (which violations name).
    static func apply(
        _ stage: ChangesetStage, number: Int, to sections: inout [MirroredSection], undo: inout MirrorUndoLog
    ) throws(BatchUpdateViolation) {
        let checked = try stage.batchUpdate(number: number).check(sectionSizes: sections.map(\.records.count))
        // Every position the stage names is valid from here on.
        for update in stage.elementUpdated {
            undo.record(.record(update.path, sections[update.path.section].records[update.path.element]))
            sections[update.path.section].records[update.path.element] = update.record
        }
        for updated in stage.sectionUpdated {
            undo.record(.model(section: updated.index, sections[updated.index].model))
            sections[updated.index].model = updated.section
        }
        let movedRecords = stage.elementMoved.map { sections[$0.source.section].records[$0.source.element] }
        self.removeRecords(stage, from: &sections, undo: &undo)
        self.placeSections(stage, checked, in: &sections, undo: &undo)
        var arrivals: [Int: [(index: Int, record: ChangesetStage.Record)]] = [:]
        for inserted in stage.elementInserted {
            arrivals[inserted.path.section, default: []].append((inserted.path.element, inserted.record))
        }
        for (move, record) in zip(stage.elementMoved, movedRecords) {
            arrivals[move.target.section, default: []].append((move.target.element, record))
        }
        for (section, records) in arrivals {
            Self.insert(records, into: &sections, section: section, undo: &undo)
        }
    }

    /// Step 2: deleted records and move sources leave their sections.
    private static func removeRecords(_ stage: ChangesetStage, from sections: inout [MirroredSection], undo: inout MirrorUndoLog) {
        var removals: [Int: [Int]] = [:]
        for path in stage.elementDeleted {
            removals[path.section, default: []].append(path.element)
        }
        for move in stage.elementMoved {
            removals[move.source.section, default: []].append(move.source.element)
        }
        for (section, var elements) in removals {
            elements.sort()
            if elements.count <= Self.inPlaceLimit {
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
                after.append(contentsOf: before[start..<element])
                start = element + 1
            }
            after.append(contentsOf: before[start...])
            undo.record(.records(section: section, before))
            sections[section].records = after
        }
    }

    /// Step 3: deleted and moved sections leave, inserted and moved ones take their places, as
    /// the batch-update check placed them.
    private static func placeSections(
        _ stage: ChangesetStage, _ checked: BatchUpdate.Checked, in sections: inout [MirroredSection], undo: inout MirrorUndoLog
    ) {
        guard !stage.sectionDeleted.isEmpty || !stage.sectionInserted.isEmpty || !stage.sectionMoved.isEmpty else { return }
        var inserted: [Int: ChangesetStage.InsertedSection] = [:]
        for section in stage.sectionInserted { inserted[section.index] = section }
        var after: [MirroredSection] = []
        after.reserveCapacity(checked.sectionCountAfter)
        for index in 0..<checked.sectionCountAfter {
            if let source = checked.source(ofSection: index) {
                after.append(sections[source])
            } else if let section = inserted[index] {
                after.append(MirroredSection(model: section.section, records: section.records))
            }
        }
        undo.record(.sections(sections))
        sections = after
    }

    /// Step 4: `arrivals` take their positions after the stage in `section`; the records that
    /// stay fill the other positions in order. A few are inserted in place, from the first
    /// position on (each then lands where it belongs); more rebuild the section.
    private static func insert(
        _ arrivals: [(index: Int, record: ChangesetStage.Record)], into sections: inout [MirroredSection], section: Int,
        undo: inout MirrorUndoLog
    ) {
        let arrivals = arrivals.sorted { $0.index < $1.index }
        guard arrivals.count <= Self.inPlaceLimit else {
            let before = sections[section].records
            undo.record(.records(section: section, before))
            sections[section].records = Self.inserting(arrivals, into: before)
            return
        }
        for arrival in arrivals {
            sections[section].records.insert(arrival.record, at: arrival.index)
            undo.record(.inserted(ElementPath(element: arrival.index, section: section)))
        }
    }

    /// The records of a section rebuilt with `arrivals` (in ascending order) at their positions
    /// after the stage and the records that stay in the other positions, in order.
    private static func inserting(
        _ arrivals: [(index: Int, record: ChangesetStage.Record)], into staying: [ChangesetStage.Record]
    ) -> [ChangesetStage.Record] {
        var after: [ChangesetStage.Record] = []
        after.reserveCapacity(staying.count + arrivals.count)
        var next = 0
        for arrival in arrivals {
            let before = arrival.index - after.count
            after.append(contentsOf: staying[next..<next + before])
            next += before
            after.append(arrival.record)
        }
        after.append(contentsOf: staying[next...])
        return after
    }
}

extension ChangesetStage {
    /// Applies this stage to `sections` as one batch update, the way a ``MirroredList`` does: for
    /// consumers that replay a changeset stage by stage (to show what each stage removes, or to
    /// drive a batch-updating view).
    ///
    /// - Parameter number: The stage's offset in its changeset, which a violation names.
    /// - Throws: `BatchUpdateViolation` (ListDiff's) when the stage names a position `sections`
    ///   do not have, or one position twice; `sections` are then unchanged.
    /// - Complexity: O(changes + sections), plus a few shifts or a rebuild of each section that
    ///   loses or gains records (see ``StageApplication``).
    public func apply(to sections: inout [MirroredSection], number: Int = 0) throws(BatchUpdateViolation) {
        var undo = MirrorUndoLog()
        try StageApplication.apply(self, number: number, to: &sections, undo: &undo)
    }

    /// Whether the stage deletes, inserts, moves or updates sections.
    var hasSectionOperations: Bool {
        !self.sectionDeleted.isEmpty || !self.sectionInserted.isEmpty || !self.sectionMoved.isEmpty || !self.sectionUpdated.isEmpty
    }
}
