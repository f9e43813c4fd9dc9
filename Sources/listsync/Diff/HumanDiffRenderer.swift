import ListDiff
import ListFormats
import ListSyncProtocol

/// Writes a change between two versions of a list for people: one line per change, `+`
/// inserted, `−` deleted, `~` updated, `→` moved, colored when the style says so. `diff` renders
/// two files with it, `subscribe` a mirror before and after each changeset.
///
///     ~ header: added: note; renamed: mail → email
///     ~ 5  name: "Bob" → "Robert"; /address/city: "Oslo" → "Bergen"
///     − 17  {"id":"17","name":"Eve"}
///     + section "eu" (1 record)
///       + 42  {"id":"42","name":"Ann","region":"eu"}
///     → 9  line 10 → line 57
///
/// A record is named by its key, or by its place when the list has no key (``ListVersion``);
/// an update shows the fields that changed (``ValueChange``), other records their value as
/// compact JSON. An update whose only difference is a renamed column is not shown: the header
/// line says it once for every record. Lines come in the order of the changeset's stages:
/// updates, deletions, section insertions and moves, record insertions and moves. With a
/// `width`, each line is cut to that many columns of display width.
struct HumanDiffRenderer<Version: ListVersion> {
    let old: Version
    let new: Version
    let stages: [ChangesetStage]
    let schemaChange: SchemaChange?
    let style: TerminalStyle
    /// The terminal's width; `nil` when lines are written whole.
    let width: Int?

    func write(to output: inout OutputWriter) {
        if let change = self.schemaChange {
            self.line("~", "header: \(change)", .magenta, to: &output)
        }
        let renamed = Dictionary(
            (self.schemaChange?.renamed ?? []).map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
        for stage in self.stages {
            for placed in stage.elementUpdated {
                guard let change = ValueChange.summary(from: self.old.value(at: placed.path), to: placed.record.value, renamed: renamed)
                else { continue }
                self.line("~", self.old.name(at: placed.path) + "  " + change, .yellow, to: &output)
            }
            for index in stage.sectionDeleted {
                self.line("−", self.sectionLabel(self.old, index), .red, to: &output)
                for element in 0..<self.old.sectionCounts[index] {
                    self.recordLine("  −", self.old, ElementPath(element: element, section: index), .red, to: &output)
                }
            }
            for path in stage.elementDeleted {
                self.recordLine("−", self.old, path, .red, to: &output)
            }
            for inserted in stage.sectionInserted {
                self.line("+", self.sectionLabel(self.new, inserted.index), .green, to: &output)
                for element in inserted.records.indices {
                    self.recordLine("  +", self.new, ElementPath(element: element, section: inserted.index), .green, to: &output)
                }
            }
            self.writeSectionMoves(stage.sectionMoved, to: &output)
            for placed in stage.elementInserted {
                self.recordLine("+", self.new, placed.path, .green, to: &output)
            }
            self.writeRecordMoves(stage.elementMoved, to: &output)
            for updated in stage.sectionUpdated {
                self.line("~", self.sectionLabel(self.new, updated.index), .yellow, to: &output)
            }
        }
    }

    /// `→ section "eu"  position 3 → 1`, positions counting from 1 in each
    /// version's order of sections.
    private func writeSectionMoves(_ moves: [ChangesetStage.Move<Int>], to output: inout OutputWriter) {
        guard !moves.isEmpty else { return }
        let targets = moves.map(\.target)
        let origins = MoveOrigins.sourcePositions(
            of: targets, source: self.old.sectionCounts.indices.lazy.map(self.old.sectionModel),
            target: self.new.sectionCounts.indices.lazy.map(self.new.sectionModel))
        for (target, origin) in zip(targets, origins) {
            let place = origin.map { "position \($0 + 1) → \(target + 1)" } ?? "to position \(target + 1)"
            self.line("→", self.sectionLabel(self.new, target) + "  " + place, .cyan, to: &output)
        }
    }

    /// `→ 9  line 10 → line 57`, with the sections when the record changed
    /// section: `→ 9  section "us" line 10 → section "eu" line 57`.
    private func writeRecordMoves(_ moves: [ChangesetStage.Move<ElementPath>], to output: inout OutputWriter) {
        guard !moves.isEmpty else { return }
        let oldBounds = SectionBounds(counts: self.old.sectionCounts)
        let newBounds = SectionBounds(counts: self.new.sectionCounts)
        let targets = moves.map { newBounds.flatPosition(of: $0.target) }
        let origins = MoveOrigins.sourcePositions(of: targets, source: self.old.identifiers, target: self.new.identifiers)
        for (move, origin) in zip(moves, origins) {
            let name = self.new.name(at: move.target)
            let to = self.new.place(at: move.target)
            guard let origin else {
                self.line("→", name + "  to " + to, .cyan, to: &output)
                continue
            }
            let source = oldBounds.path(ofFlatPosition: origin)
            let from = self.old.place(at: source)
            let oldSection = self.old.sectionModel(source.section)
            let newSection = self.new.sectionModel(move.target.section)
            let detail = oldSection == newSection
                ? "\(from) → \(to)"
                : "section \(oldSection.jsonText) \(from) → section \(newSection.jsonText) \(to)"
            self.line("→", name + "  " + detail, .cyan, to: &output)
        }
    }

    /// `− 17  {"id":"17","name":"Eve"}`: a record's name and value.
    private func recordLine(_ symbol: String, _ version: Version, _ path: ElementPath, _ color: TerminalStyle.Color, to output: inout OutputWriter) {
        self.line(symbol, version.name(at: path) + "  " + version.value(at: path).jsonText, color, to: &output)
    }

    private func line(_ symbol: String, _ text: String, _ color: TerminalStyle.Color, to output: inout OutputWriter) {
        output.write(self.style.paint(Self.cut(symbol + " " + text, to: self.width), color) + "\n")
    }

    /// `text`, or as much as fits in `width − 1` columns and `…` when it takes more than `width`
    /// columns (display width: a CJK character takes 2, a combining mark 0; see ``DisplayWidth``).
    static func cut(_ text: String, to width: Int?) -> String {
        DisplayWidth.cut(text, to: width)
    }

    /// `section "eu" (12 records)`.
    private func sectionLabel(_ version: Version, _ section: Int) -> String {
        let count = version.sectionCounts[section]
        return "section \(version.sectionModel(section).jsonText) (\(count) \(count == 1 ? "record" : "records"))"
    }
}
