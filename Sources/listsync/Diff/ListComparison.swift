import ListDiff
import ListFormats
import ListSyncProtocol

/// Two versions of a list and what changed between them: the staged
/// changeset of their records, as ``ChangesetStage`` values, and the change of
/// their columns.
struct ListComparison: Sendable {
    /// The old version.
    let old: ListFile

    /// The new version.
    let new: ListFile

    /// The stages that turn the old records into the new ones. Two linear
    /// lists give a linear changeset (paths in section 0); as soon as one
    /// side is sectioned, a sectioned one.
    let stages: [ChangesetStage]

    /// How the columns changed; `nil` when they did not.
    let schemaChange: SchemaChange?

    /// Diffs `old` against `new`. O(*n*) expected, plus the values of the
    /// records inserted and updated.
    init(old: ListFile, new: ListFile) {
        self.init(old: old, new: new, tellsUniqueness: true)
    }

    /// Diffs `old` against `new`, telling the engine that no identity repeats when the readers
    /// counted no duplicate in either list (``ReadReport/duplicateCount``) if `tellsUniqueness`:
    /// the engine then pairs the records in step, without a table over the old list
    /// (``KnownEqualEnds/identifiersAreUnique``). The changeset is the same either way; without
    /// it (`false`) the engine finds everything itself, the path the tests compare with.
    init(old: ListFile, new: ListFile, tellsUniqueness: Bool) {
        self.old = old
        self.new = new
        let known = KnownEqualEnds(
            prefix: 0, suffix: 0,
            identifiersAreUnique: tellsUniqueness && old.list.report.duplicateCount == 0 && new.list.report.duplicateCount == 0)
        if old.list.isSectioned || new.list.isSectioned {
            stages = ChangesetEncoder.stages(
                of: StagedChangeset(source: old.list.sections, target: new.list.sections, knownEqualEnds: known),
                source: old.list, target: new.list)
        } else {
            stages = ChangesetEncoder.stages(
                of: StagedChangeset(source: old.list.records, target: new.list.records, section: 0, knownEqualEnds: known),
                source: old.list, target: new.list)
        }
        schemaChange = Self.schemaChange(from: old.list, to: new.list)
    }

    /// How the columns changed; `nil` when nothing that can be reported did. Renames and
    /// reorders are positional, so only CSV headers have them; JSON lists report added and
    /// removed members (``ParsedList/schemaChange(from:)``).
    private static func schemaChange(from old: ParsedList, to new: ParsedList) -> SchemaChange? {
        guard let change = new.schemaChange(from: old), !change.isEmpty else { return nil }
        return change
    }

    /// Whether the versions hold the same records, in the same order, with
    /// the same columns.
    var isIdentical: Bool {
        stages.isEmpty && schemaChange == nil
    }
}

