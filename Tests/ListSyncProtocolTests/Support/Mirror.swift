import ListDiff
import ListFormats
import ListSyncProtocol

/// A mirror of a list that only knows decoded ``ChangesetStage``s, as a
/// remote client does: it checks that the encoding carries everything needed.
struct Mirror: Equatable {
    struct Section: Equatable {
        var section: ChangesetStage.Section
        var records: [ChangesetStage.Record]
    }

    var sections: [Section]

    /// The mirror of a parsed list.
    init(_ list: ParsedList) {
        sections = list.sections.map { section in
            Section(section: ChangesetStage.Section(section.model), records: section.elements.map { ChangesetStage.Record($0, of: list) })
        }
    }

    /// Where the keys `stage` names (a list keyed by the member `field`) are not those of the
    /// records at its paths: deleted records and move sources before the stage, updated ones
    /// too, and inserted ones by their values; empty when every key is right.
    func keyProblems(of stage: ChangesetStage, field: String) -> [String] {
        func key(at path: ElementPath) -> ChangesetStage.RecordKey? {
            sections[path.section].records[path.element].value[member: field].map { [$0] }
        }
        var problems: [String] = []
        if stage.elementDeletedKeys.count != stage.elementDeleted.count { problems.append("deleted keys: \(stage.elementDeletedKeys)") }
        if stage.elementMovedKeys.count != stage.elementMoved.count { problems.append("moved keys: \(stage.elementMovedKeys)") }
        for (path, named) in zip(stage.elementDeleted, stage.elementDeletedKeys) where key(at: path) != named {
            problems.append("deleted \(path) is not \(named)")
        }
        for (move, named) in zip(stage.elementMoved, stage.elementMovedKeys) where key(at: move.source) != named {
            problems.append("moved \(move.source) is not \(named)")
        }
        for placed in stage.elementUpdated where key(at: placed.path) != placed.key || placed.record.value[member: field].map({ [$0] }) != placed.key {
            problems.append("updated \(placed.path) is not \(String(describing: placed.key))")
        }
        for placed in stage.elementInserted where placed.record.value[member: field].map({ [$0] }) != placed.key {
            problems.append("inserted \(placed.path) is not \(String(describing: placed.key))")
        }
        return problems
    }

    /// Applies one stage with batch-update semantics: updates, deletions and
    /// move sources at positions before the stage; insertions and move
    /// targets at positions after it.
    mutating func apply(_ stage: ChangesetStage) {
        for update in stage.elementUpdated {
            sections[update.path.section].records[update.path.element] = update.record
        }
        for update in stage.sectionUpdated {
            sections[update.index].section = update.section
        }
        // Remove elements (before-space paths), then sections.
        var movedElements: [ElementPath: ChangesetStage.Record] = [:]
        for move in stage.elementMoved {
            movedElements[move.target] = sections[move.source.section].records[move.source.element]
        }
        let removedElements = stage.elementDeleted + stage.elementMoved.map(\.source)
        for path in removedElements.sorted(by: >) {
            sections[path.section].records.remove(at: path.element)
        }
        var movedSections: [Int: Section] = [:]
        for move in stage.sectionMoved {
            movedSections[move.target] = sections[move.source]
        }
        for index in (stage.sectionDeleted + stage.sectionMoved.map(\.source)).sorted(by: >) {
            sections.remove(at: index)
        }
        // Insert sections, then elements, in ascending target order.
        var sectionInserts = stage.sectionInserted.map { ($0.index, Section(section: $0.section, records: $0.records)) }
        sectionInserts += movedSections.map { ($0.key, $0.value) }
        for (index, section) in sectionInserts.sorted(by: { $0.0 < $1.0 }) {
            sections.insert(section, at: index)
        }
        var elementInserts = stage.elementInserted.map { ($0.path, $0.record) }
        elementInserts += movedElements.map { ($0.key, $0.value) }
        for (path, record) in elementInserts.sorted(by: { $0.0 < $1.0 }) {
            sections[path.section].records.insert(record, at: path.element)
        }
    }
}
