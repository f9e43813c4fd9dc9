import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// Writes a subscription's updates for people, one line per change, colored on a terminal, the
/// changes exactly as `listsync diff --format human` writes them (``HumanDiffRenderer``, with
/// the mirror before and after each changeset as the two versions):
///
///     ● products 5f0c2a4e19b7d3a8:12  snapshot: 1200 records in 3 sections
///     ● products 5f0c2a4e19b7d3a8:13
///     ~ A1  price: "12" → "13"
///     − B7  {"sku":"B7","price":"3","category":"veg"}
///     + C9  {"sku":"C9","price":"40","category":"fruit"}
///     → A2  section "veg" position 2 → section "fruit" position 1
///     ✗ products invalid: 14:9: quoted field is never closed
///
/// After `--since`, the mirror holds no list until a snapshot comes, so the changesets it missed
/// are shown from what they carry alone: each change by its place in the list
/// (`[section,record]`) and the values it brings. Once caught up,
/// the command hands the renderer the daemon's list at the mirror's cursor (``adopt(_:)``),
/// which it keeps current itself, and the next changesets are shown in full again.
struct HumanUpdateRenderer {
    let style: TerminalStyle
    /// How the watch's records are named.
    var naming: MirrorVersion.Naming
    /// The terminal's width; `nil` when lines are written whole.
    let width: Int?
    /// The list before the next changeset; `nil` while neither the mirror nor ``adopted`` has one.
    private var previous: [MirroredSection]?
    /// After `--since`, whose mirror holds no list: the daemon's list at the mirror's cursor,
    /// which the renderer applies the next changesets to.
    private var adopted: MirroredList?

    init(style: TerminalStyle, naming: MirrorVersion.Naming, width: Int?) {
        self.style = style
        self.naming = naming
        self.width = width
    }

    /// Writes the lines for a snapshot, changeset or status; returns `false` for the connection
    /// events, which ``note(for:)`` tells.
    mutating func render(_ update: MirrorUpdate, to output: inout OutputWriter) -> Bool {
        let mirror = update.mirror
        let cursor = mirror.cursor.map { " \($0)" } ?? ""
        switch update.event {
        case .snapshot:
            self.previous = mirror.sections
            let sections = mirror.isSectioned ? " in \(mirror.sections.count) sections" : ""
            self.line("● \(mirror.watch)\(cursor)  snapshot: \(mirror.recordCount) records\(sections)", .cyan, to: &output)
        case .changeset(let changeset):
            self.line("● \(mirror.watch)\(cursor)", .cyan, to: &output)
            let sections = mirror.hasList ? mirror.sections : self.applyToAdopted(changeset)
            defer { self.previous = sections }
            if let previous = self.previous, let sections {
                HumanDiffRenderer(
                    old: MirrorVersion(sections: previous, naming: self.naming), new: MirrorVersion(sections: sections, naming: self.naming),
                    stages: changeset.stages, schemaChange: changeset.schema?.change, style: self.style, width: self.width
                ).write(to: &output)
            } else {
                if let schema = changeset.schema {
                    self.line("~ header: \(schema.change)", .magenta, to: &output)
                }
                self.renderPlaces(changeset.stages, to: &output)
            }
        case .status(let status):
            let color: TerminalStyle.Color = status.state == .ok ? .green : [.loading, .writing].contains(status.state) ? .yellow : .red
            self.line(Self.describe(status), color, to: &output)
        case .subscribed, .resyncing, .disconnected, .snapshotChunk:
            return false
        }
        return true
    }

    /// Whether the renderer knows the list the next changeset applies to.
    var hasList: Bool { self.previous != nil }

    /// Takes `list`, the daemon's list at the cursor of a mirror that holds none (after
    /// `--since`), as the list the next changeset applies to.
    mutating func adopt(_ list: MirroredList) {
        self.adopted = list
        self.previous = list.sections
    }

    /// The adopted list after `changeset`; `nil` (and no adopted list any more) when there is
    /// none or the changeset does not apply to it.
    private mutating func applyToAdopted(_ changeset: ChangesetMessage) -> [MirroredSection]? {
        guard var adopted = self.adopted, (try? adopted.apply(changeset)) != nil else {
            self.adopted = nil
            return nil
        }
        self.adopted = adopted
        return adopted.sections
    }

    /// What a long-running command tells on standard error about `update`: connection events,
    /// resyncs, and a watched file that is not ok; `nil` for the rest.
    static func note(for update: MirrorUpdate) -> String? {
        switch update.event {
        case .subscribed(let subscription):
            return Self.subscribed(subscription)
        case .resyncing(let error):
            return "listsync: resynchronizing: \(error)\n"
        case .disconnected(let error, let retryIn):
            return Self.reconnecting("\(error)", in: retryIn)
        case .status(let status) where status.state != .ok || !status.warnings.isEmpty:
            return "listsync: \(Self.describe(status))\n"
        case .status, .snapshot, .snapshotChunk, .changeset:
            return nil
        }
    }

    /// `listsync: subscribed to products at EPOCH:SEQ: resuming` (or `: snapshot`): the line
    /// every long-running command (`subscribe`, `mirror`, `exec`, `sink`) prints when it is
    /// subscribed, first and again after each reconnection.
    static func subscribed(_ subscription: ReplyResult.Subscription) -> String {
        let at = subscription.cursor.map { " at \($0)" } ?? " (no version yet)"
        return "listsync: subscribed to \(subscription.watch)\(at): \(subscription.mode == .resume ? "resuming" : "snapshot")\n"
    }

    /// `listsync: REASON; reconnecting in 500 ms`: a lost connection (to the daemon, or a sink's
    /// database) and when the next attempt is, following the backoff.
    static func reconnecting(_ reason: String, in delay: Duration) -> String {
        let milliseconds = Int((Double(delay.components.seconds) * 1e3 + Double(delay.components.attoseconds) / 1e15).rounded())
        return "listsync: \(reason); reconnecting in \(milliseconds) ms\n"
    }

    /// `✓ products ok`, `✓ products ok; warning: 7:1: 1 record repeats the key of an earlier
    /// one; the first is here`, `… products writing: a writer has held the file open for 7 s;
    /// …`, `✗ products invalid: 14:9: quoted field is never closed`.
    private static func describe(_ status: StatusMessage) -> String {
        switch status.state {
        case .ok: return "✓ \(status.watch) ok" + status.warnings.map { "; warning: \($0)" }.joined()
        case .loading: return "… \(status.watch) loading"
        case .writing:
            let since = status.since.map { " for \(WritingDuration.since($0))" } ?? ""
            return "… \(status.watch) writing: a writer has held the file open\(since); the last version stays live until it closes it"
        case .invalid, .missing, .removed: return "✗ \(status.watch) \(status.state.rawValue)" + (status.error.map { ": \($0)" } ?? "")
        }
    }

    /// The stages of a changeset the mirror has no list for: places `[section,record]` (a linear
    /// list's section is 0) and the values carried.
    private func renderPlaces(_ stages: [ChangesetStage], to output: inout OutputWriter) {
        func place(_ path: ElementPath) -> String {
            "[\(path.section),\(path.element)]"
        }
        for stage in stages {
            for updated in stage.elementUpdated {
                self.line("~ \(place(updated.path))  \(updated.record.value.jsonText)", .yellow, to: &output)
            }
            for index in stage.sectionDeleted {
                self.line("− section #\(index)", .red, to: &output)
            }
            for path in stage.elementDeleted {
                self.line("− \(place(path))", .red, to: &output)
            }
            for inserted in stage.sectionInserted {
                self.line("+ section \(inserted.section.model.jsonText) (\(inserted.records.count) records)", .green, to: &output)
                for record in inserted.records {
                    self.line("  + \(record.value.jsonText)", .green, to: &output)
                }
            }
            for move in stage.sectionMoved {
                self.line("→ section #\(move.source) → #\(move.target)", .cyan, to: &output)
            }
            for inserted in stage.elementInserted {
                self.line("+ \(place(inserted.path))  \(inserted.record.value.jsonText)", .green, to: &output)
            }
            for move in stage.elementMoved {
                self.line("→ \(place(move.source)) → \(place(move.target))", .cyan, to: &output)
            }
            for updated in stage.sectionUpdated {
                self.line("~ section #\(updated.index): \(updated.section.model.jsonText)", .yellow, to: &output)
            }
        }
    }

    private func line(_ text: String, _ color: TerminalStyle.Color, to output: inout OutputWriter) {
        output.write(self.style.paint(HumanDiffRenderer<MirrorVersion>.cut(text, to: self.width), color) + "\n")
    }
}
