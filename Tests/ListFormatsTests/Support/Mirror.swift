import ListDiff
import ListFormats

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
