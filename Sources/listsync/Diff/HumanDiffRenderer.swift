import ListDiff
import ListFormats

/// Writes a comparison for people: one line per change, `+` inserted,
/// `−` deleted, `~` updated, `→` moved, colored when the style says so.
///
///     ~ header: added: note; renamed: mail → email
///     ~ 5  name: "Bob" → "Robert"
///     − 17  {"id":"17","name":"Eve"}
///     + section "eu" (1 record)
///       + 42  {"id":"42","name":"Ann","region":"eu"}
///     → 9  line 10 → line 57
///
/// A record is named by its key, or by its line when the list has no key;
/// its value is printed as compact JSON. Lines come in the order of the
/// changeset's stages: updates, deletions, section insertions and moves,
/// record insertions and moves.
struct HumanDiffRenderer {
    let comparison: ListComparison
    let style: TerminalStyle

    private let oldSections: [ArraySection<SectionModel, ListRecord>]
    private let newSections: [ArraySection<SectionModel, ListRecord>]
    private let old: RecordNames
    private let new: RecordNames

    init(comparison: ListComparison, style: TerminalStyle) {
        self.comparison = comparison
        self.style = style
        oldSections = comparison.old.list.sections
        newSections = comparison.new.list.sections
        old = RecordNames(comparison.old)
        new = RecordNames(comparison.new)
    }

    func write(to output: inout OutputWriter) {
        if let change = comparison.schemaChange {
            line("~", "header: \(change)", .magenta, to: &output)
        }
        // A renamed column updates every record; the header line says so once, and a record is
        // shown only when something else changed.
        let renames = Dictionary(
            (comparison.schemaChange?.renamed ?? []).map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
        for stage in comparison.stages {
            for placed in stage.elementUpdated {
                let record = oldSections[placed.path.section].elements[placed.path.element]
                let oldValue = old.value(of: record).renamingMembers(renames)
                guard oldValue != placed.record.value else { continue }
                let change = ValueChange.summary(from: oldValue, to: placed.record.value)
                line("~", old.name(of: record) + "  " + change, .yellow, to: &output)
            }
            for index in stage.sectionDeleted {
                let section = oldSections[index]
                line("−", sectionLabel(section), .red, to: &output)
                for record in section.elements {
                    line("  −", old.name(of: record) + "  " + old.value(of: record).jsonText, .red, to: &output)
                }
            }
            for path in stage.elementDeleted {
                let record = oldSections[path.section].elements[path.element]
                line("−", old.name(of: record) + "  " + old.value(of: record).jsonText, .red, to: &output)
            }
            for inserted in stage.sectionInserted {
                let section = newSections[inserted.index]
                line("+", sectionLabel(section), .green, to: &output)
                for (record, value) in zip(section.elements, inserted.records) {
                    line("  +", new.name(of: record) + "  " + value.value.jsonText, .green, to: &output)
                }
            }
            writeSectionMoves(stage.sectionMoved, to: &output)
            for placed in stage.elementInserted {
                let record = newSections[placed.path.section].elements[placed.path.element]
                line("+", new.name(of: record) + "  " + placed.record.value.jsonText, .green, to: &output)
            }
            writeRecordMoves(stage.elementMoved, to: &output)
            for updated in stage.sectionUpdated {
                line("~", sectionLabel(newSections[updated.index]), .yellow, to: &output)
            }
        }
    }

    /// `→ section "eu"  position 3 → 1`, positions counting from 1 in each
    /// version's order of sections.
    private func writeSectionMoves(_ moves: [ChangesetStage.Move<Int>], to output: inout OutputWriter) {
        let targets = moves.map(\.target)
        let origins = MoveOrigins.sourcePositions(
            of: targets, source: oldSections.lazy.map(\.model), target: newSections.lazy.map(\.model))
        for (target, origin) in zip(targets, origins) {
            let place = origin.map { "position \($0 + 1) → \(target + 1)" } ?? "to position \(target + 1)"
            line("→", sectionLabel(newSections[target]) + "  " + place, .cyan, to: &output)
        }
    }

    /// `→ 9  line 10 → line 57`, with the sections when the record changed
    /// section: `→ 9  section "us" line 10 → section "eu" line 57`.
    private func writeRecordMoves(_ moves: [ChangesetStage.Move<ElementPath>], to output: inout OutputWriter) {
        guard !moves.isEmpty else { return }
        let oldBounds = SectionBounds(counts: oldSections.lazy.map(\.elements.count))
        let newBounds = SectionBounds(counts: newSections.lazy.map(\.elements.count))
        let oldRecords = comparison.old.list.records
        let newRecords = comparison.new.list.records
        let targets = moves.map { newBounds.flatPosition(of: $0.target) }
        let origins = MoveOrigins.sourcePositions(
            of: targets, source: oldRecords.lazy.map(\.differenceIdentifier), target: newRecords.lazy.map(\.differenceIdentifier))
        for (move, origin) in zip(moves, origins) {
            let record = newSections[move.target.section].elements[move.target.element]
            let to = "line \(new.line(of: record))"
            guard let origin else {
                line("→", new.name(of: record) + "  to " + to, .cyan, to: &output)
                continue
            }
            let from = "line \(old.line(of: oldRecords[origin]))"
            let oldSection = oldSections[oldBounds.path(ofFlatPosition: origin).section].model
            let newSection = newSections[move.target.section].model
            let detail = oldSection == newSection
                ? "\(from) → \(to)"
                : "section \(oldSection.value.jsonText) \(from) → section \(newSection.value.jsonText) \(to)"
            line("→", new.name(of: record) + "  " + detail, .cyan, to: &output)
        }
    }

    private func line(_ symbol: String, _ text: String, _ color: TerminalStyle.Color, to output: inout OutputWriter) {
        output.write(style.paint(symbol + " " + text, color) + "\n")
    }

    /// `section "eu" (12 records)`.
    private func sectionLabel(_ section: ArraySection<SectionModel, ListRecord>) -> String {
        let count = section.elements.count
        return "section \(section.model.value.jsonText) (\(count) \(count == 1 ? "record" : "records"))"
    }
}

extension ListValue {
    /// An object with its members renamed by `names` (old name → new name), in place; any other
    /// value as it is.
    fileprivate func renamingMembers(_ names: [String: String]) -> ListValue {
        guard !names.isEmpty, case .object(let members) = self else { return self }
        return .object(members.map { ListValue.Member(name: names[$0.name] ?? $0.name, value: $0.value) })
    }
}
