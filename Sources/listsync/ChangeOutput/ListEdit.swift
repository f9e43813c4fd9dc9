import ListDiff
import ListFormats
import ListSyncProtocol
import ListSyncClient

/// One step of a changeset as edits of the list's JSON rendering (`listsync snapshot
/// --output-format json`: an array of records, or for a sectioned list an object whose members,
/// named by the sections, are arrays of records), in the order they apply: each edit's position
/// is valid in the list as the edits before it left it. JSON Patch (``JSONPatchLines``) writes
/// them as they are; change events (``ChangeEventLines``) sum them up by record.
///
/// `section` is the member's name, `nil` for a linear list (the rendering is then the array).
enum ListEdit {
    /// The record at `index` gets a new value.
    case update(section: String?, index: Int, before: ChangesetStage.Record, after: ChangesetStage.Record)
    /// The record at `index` leaves (deleted, or moved: it arrives again later).
    case removeRecord(section: String?, index: Int, record: ChangesetStage.Record)
    /// A whole section leaves, with its records.
    case removeSection(String, records: [ChangesetStage.Record])
    /// A section's name changes.
    case renameSection(from: String, to: String)
    /// A new section arrives, with its records.
    case addSection(String, records: [ChangesetStage.Record])
    /// A record arrives at `index` (inserted, or the target of a move).
    case addRecord(section: String?, index: Int, record: ChangesetStage.Record)

    /// The edits that turn the list `previous` into the list after `stages`, stage by stage,
    /// each stage in the order of docs/PROTOCOL.md (*Changeset encoding*): updates; records that
    /// leave, in descending position in each section; sections that leave; renamed sections;
    /// sections that arrive; records that arrive, in ascending position. A moved section keeps
    /// its name, so it needs no edit (an object's members have no order in JSON).
    ///
    /// - Throws: `BatchUpdateViolation` when a stage does not apply to the list.
    /// - Complexity: O(changes), plus O(size) of each section that loses or gains records.
    static func edits(
        of stages: [ChangesetStage], from previous: [MirroredSection], sectioned: Bool
    ) throws(BatchUpdateViolation) -> [ListEdit] {
        var edits: [ListEdit] = []
        var sections = previous
        for (number, stage) in stages.enumerated() {
            var after = sections
            // Applying first checks every position the stage names.
            try stage.apply(to: &after, number: number)
            func name(_ index: Int, in list: [MirroredSection]) -> String? {
                sectioned ? list[index].model.model.text : nil
            }
            var updated = sections
            for update in stage.elementUpdated {
                let path = update.path
                edits.append(.update(section: name(path.section, in: sections), index: path.element, before: sections[path.section].records[path.element], after: update.record))
                updated[path.section].records[path.element] = update.record
            }
            let leaving = stage.elementDeleted + stage.elementMoved.map(\.source)
            for path in leaving.sorted(by: { ($0.section, $1.element) < ($1.section, $0.element) }) {
                edits.append(.removeRecord(section: name(path.section, in: sections), index: path.element, record: updated[path.section].records[path.element]))
            }
            for index in stage.sectionDeleted {
                edits.append(.removeSection(name(index, in: sections) ?? "", records: updated[index].records))
            }
            let origins = Self.origins(of: stage, sectionCount: sections.count)
            for section in stage.sectionUpdated {
                guard let origin = origins[section.index], let from = name(origin, in: sections), let to = name(section.index, in: after), from != to else { continue }
                edits.append(.renameSection(from: from, to: to))
            }
            for inserted in stage.sectionInserted {
                edits.append(.addSection(name(inserted.index, in: after) ?? "", records: inserted.records))
            }
            let arriving = stage.elementInserted.map(\.path) + stage.elementMoved.map(\.target)
            for path in arriving.sorted(by: { ($0.section, $0.element) < ($1.section, $1.element) }) {
                edits.append(.addRecord(section: name(path.section, in: after), index: path.element, record: after[path.section].records[path.element]))
            }
            sections = after
        }
        return edits
    }

    /// For each section index after `stage`, the index it had before: `nil` for an inserted
    /// section. O(sections).
    private static func origins(of stage: ChangesetStage, sectionCount: Int) -> [Int?] {
        let moved = Dictionary(stage.sectionMoved.map { ($0.target, $0.source) }, uniquingKeysWith: { first, _ in first })
        let inserted = Set(stage.sectionInserted.map(\.index))
        let leaving = Set(stage.sectionDeleted + stage.sectionMoved.map(\.source))
        var staying = (0..<sectionCount).lazy.filter { !leaving.contains($0) }.makeIterator()
        let count = sectionCount - stage.sectionDeleted.count + stage.sectionInserted.count
        return (0..<count).map { index in
            if inserted.contains(index) { return nil }
            return moved[index] ?? staying.next()
        }
    }
}
