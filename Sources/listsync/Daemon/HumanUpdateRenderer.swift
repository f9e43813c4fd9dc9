import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// Writes a subscription's updates for people, one line per change, colored on a terminal:
///
///     ● products 5f0c2a4e19b7d3a8:12  snapshot: 1200 records in 3 sections
///     ● products 5f0c2a4e19b7d3a8:13
///     ~ [0,3]  {"sku":"A1","price":"12"}
///     − [1,0]  {"sku":"B7","price":"3"}
///     + [2,5]  {"sku":"C9","price":"40"}
///     → [0,1] → [0,4]  {"sku":"A2","price":"5"}
///     ✗ products invalid: 14:9: quoted field is never closed
///
/// Positions are `[section,record]` for sectioned lists and `#record` for linear ones, each in
/// the state its stage applies to. To show what a stage removes, the renderer keeps the list as
/// it was and replays each stage on it.
struct HumanUpdateRenderer {
    let style: TerminalStyle
    /// The list before the next changeset.
    private var previous: [MirroredSection] = []

    init(style: TerminalStyle) {
        self.style = style
    }

    /// The lines for a snapshot, changeset or status (each ending in a newline); `nil` for the
    /// connection events, which ``note(for:)`` tells.
    mutating func render(_ update: MirrorUpdate) -> String? {
        let mirror = update.mirror
        let cursor = mirror.cursor.map { " \($0)" } ?? ""
        switch update.event {
        case .snapshot:
            self.previous = mirror.sections
            let sections = mirror.isSectioned ? " in \(mirror.sections.count) sections" : ""
            return self.style.paint("● \(mirror.watch)\(cursor)  snapshot: \(mirror.recordCount) records\(sections)", .cyan) + "\n"
        case .changeset(let changeset):
            var output = self.style.paint("● \(mirror.watch)\(cursor)", .cyan) + "\n"
            if let schema = changeset.schema {
                output += self.style.paint("~ header: \(schema.change)", .magenta) + "\n"
            }
            self.renderStages(changeset.stages, sectioned: mirror.isSectioned, into: &output)
            self.previous = mirror.sections
            return output
        case .status(let status):
            let color: TerminalStyle.Color = status.state == .ok ? .green : status.state == .loading ? .yellow : .red
            return self.style.paint(Self.describe(status), color) + "\n"
        case .subscribed, .resyncing, .disconnected:
            return nil
        }
    }

    /// What a long-running command tells on standard error about `update`: connection events,
    /// resyncs, and a watched file that is not ok; `nil` for the rest.
    static func note(for update: MirrorUpdate) -> String? {
        switch update.event {
        case .subscribed(let subscription):
            let at = subscription.cursor.map { " at \($0)" } ?? " (no version yet)"
            return "listsync: subscribed to \(subscription.watch)\(at): \(subscription.mode == .resume ? "resuming" : "snapshot")\n"
        case .resyncing(let error):
            return "listsync: resynchronizing: \(error)\n"
        case .disconnected(let error, let retryIn):
            let milliseconds = Int((Double(retryIn.components.seconds) * 1e3 + Double(retryIn.components.attoseconds) / 1e15).rounded())
            return "listsync: \(error); reconnecting in \(milliseconds) ms\n"
        case .status(let status) where status.state != .ok || !status.warnings.isEmpty:
            return "listsync: \(Self.describe(status))\n"
        case .status, .snapshot, .changeset:
            return nil
        }
    }

    /// `✓ products ok`, `✓ products ok; warning: 7:1: 1 record repeats the key of an earlier
    /// one; the first is here`, `✗ products invalid: 14:9: quoted field is never closed`.
    private static func describe(_ status: StatusMessage) -> String {
        switch status.state {
        case .ok: return "✓ \(status.watch) ok" + status.warnings.map { "; warning: \($0)" }.joined()
        case .loading: return "… \(status.watch) loading"
        case .invalid, .missing, .removed: return "✗ \(status.watch) \(status.state.rawValue)" + (status.error.map { ": \($0)" } ?? "")
        }
    }

    private func renderStages(_ stages: [ChangesetStage], sectioned: Bool, into output: inout String) {
        var sections = self.previous
        func position(_ path: ElementPath) -> String {
            sectioned ? "[\(path.section),\(path.element)]" : "#\(path.element)"
        }
        func record(at path: ElementPath) -> String {
            guard sections.indices.contains(path.section), sections[path.section].records.indices.contains(path.element) else { return "" }
            return "  " + sections[path.section].records[path.element].value.jsonText
        }
        func name(_ section: ChangesetStage.Section) -> String {
            "section \(section.model.jsonText)"
        }
        func line(_ text: String, _ color: TerminalStyle.Color) {
            output += self.style.paint(text, color) + "\n"
        }
        for stage in stages {
            for updated in stage.elementUpdated {
                line("~ \(position(updated.path))  \(updated.record.value.jsonText)", .yellow)
            }
            for index in stage.sectionDeleted where sections.indices.contains(index) {
                line("− \(name(sections[index].model)) (\(sections[index].records.count) records)", .red)
            }
            for path in stage.elementDeleted {
                line("− \(position(path))\(record(at: path))", .red)
            }
            for inserted in stage.sectionInserted {
                line("+ \(name(inserted.section)) (\(inserted.records.count) records)", .green)
                for record in inserted.records {
                    line("  + \(record.value.jsonText)", .green)
                }
            }
            for move in stage.sectionMoved where sections.indices.contains(move.source) {
                line("→ \(name(sections[move.source].model)) \(move.source) → \(move.target)", .cyan)
            }
            for inserted in stage.elementInserted {
                line("+ \(position(inserted.path))  \(inserted.record.value.jsonText)", .green)
            }
            for move in stage.elementMoved {
                line("→ \(position(move.source)) → \(position(move.target))\(record(at: move.source))", .cyan)
            }
            for updated in stage.sectionUpdated {
                line("~ \(name(updated.section))", .yellow)
            }
            // The mirror verified the changeset, so the replay cannot fail.
            try? stage.apply(to: &sections)
        }
    }
}
