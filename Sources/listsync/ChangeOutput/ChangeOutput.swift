import ArgumentParser
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// What `subscribe` prints and `exec` feeds its command for each snapshot and changeset, in one
/// of the machine formats; it keeps the list each changeset applies to.
struct ChangeOutput {
    /// A machine format of `subscribe --format` and `exec --format`.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        /// Each event as the protocol message that carries it (``UpdateLines``).
        case ndjson
        /// Each snapshot and changeset as an RFC 6902 document (``JSONPatchLines``).
        case jsonPatch = "json-patch"
        /// One line per changed record (``ChangeEventLines``).
        case events

        /// Whether the format needs the list before each changeset (which a client started
        /// from a cursor alone does not hold).
        var needsList: Bool { self != .ndjson }
    }

    let format: Format
    private var events: ChangeEventLines
    /// The list as of the last snapshot or changeset; `nil` before the first.
    private var previous: [MirroredSection]?

    /// An output in `format` for watch `watch`, as the daemon's `summary` describes it (its key
    /// identifies records in events, its path is their source file).
    init(format: Format, watch: String, summary: WatchSummary?) {
        self.format = format
        self.events = ChangeEventLines(watch: watch, key: MirrorVersion.Naming(of: summary).key, file: summary?.path)
    }

    /// Takes `mirror`'s list as the one the next changeset applies to: a mirror restored from
    /// a client's state.
    mutating func start(from mirror: MirroredList) {
        self.previous = mirror.sections
        if self.format == .events { self.events.hold(mirror.sections) }
    }

    /// The bytes for `update`: for a snapshot or changeset, zero or more lines (events of a
    /// changeset that only moved records within their sections: none); for a status, its
    /// protocol message in ndjson, `nil` in the other formats; `nil` for connection events.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when a changeset does not apply to the list held
    ///   (the mirror verified it, so this means a defect).
    mutating func bytes(for update: MirrorUpdate) throws(ClientFailure) -> [UInt8]? {
        let mirror = update.mirror
        switch (self.format, update.event) {
        case (.ndjson, _):
            return UpdateLines.line(for: update)
        case (_, .snapshot(let cursor)):
            self.previous = mirror.sections
            return self.format == .jsonPatch
                ? JSONPatchLines.snapshot(mirror.sections, sectioned: mirror.isSectioned)
                : self.events.snapshot(mirror.sections, sectioned: mirror.isSectioned, cursor: cursor)
        case (_, .changeset(let changeset)):
            guard let previous = self.previous else { return nil }
            let edits: [ListEdit]
            do {
                edits = try ListEdit.edits(of: changeset.stages, from: previous, sectioned: mirror.isSectioned)
            } catch {
                throw .data("changeset \(changeset.cursor) does not apply to the list held: \(error)")
            }
            self.previous = mirror.sections
            return self.format == .jsonPatch
                ? JSONPatchLines.changeset(edits)
                : self.events.changeset(edits, from: previous, to: mirror.sections, sectioned: mirror.isSectioned, cursor: changeset.cursor)
        case (_, .status), (_, .subscribed), (_, .resyncing), (_, .disconnected), (_, .snapshotChunk):
            return nil
        }
    }
}
