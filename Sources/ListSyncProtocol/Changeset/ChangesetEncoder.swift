import ListDiff
import ListFormats

/// Turns the staged changesets `ListDiff` computes between two parsed lists
/// into ``ChangesetStage``s and into their JSON encoding (*Changeset
/// encoding* in docs/PROTOCOL.md), which the daemon broadcasts.
///
/// Only the records a stage touches are decoded from their files, through
/// the changeset's O(1) accessors: encoding costs O(changes), not O(list).
///
///     let changeset = StagedChangeset(source: old.sections, target: new.sections)
///     let json = ChangesetEncoder.encode(changeset, source: old, target: new)   // [{"element_updated": …}, …]
///
/// The records a stage inserts or updates are records of the target list,
/// whose values `target` decodes. When the lists have a key, every record
/// deleted, moved, updated or inserted also names its key: a deleted record
/// is read at its path in `source` (ListDiff deletes in the source's index
/// space), a moved one at its target path in `target` (moves end in the
/// target's).
public enum ChangesetEncoder {
    /// The stages of a changeset from `source`'s sections to `target`'s (or linear lists as
    /// ``ParsedList/sections``), as `StagedChangeset(source:target:)` computes it.
    public static func stages(
        of changeset: StagedChangeset<[ArraySection<SectionModel, ListRecord>]>, source: ParsedList, target: ParsedList
    ) -> [ChangesetStage] {
        contents(of: changeset, source: source, target: target).map(ChangesetStage.init)
    }

    /// The stages of a changeset from `source`'s records to `target`'s, as
    /// `StagedChangeset(source:target:)` computes it; paths are in section 0.
    public static func stages(of changeset: StagedChangeset<[ListRecord]>, source: ParsedList, target: ParsedList) -> [ChangesetStage] {
        contents(of: changeset, source: source, target: target).map(ChangesetStage.init)
    }

    /// The stages of a changeset from `sourceRecords`, the records of `source`, to
    /// `targetRecords`, those of `target`, held in any collection — ``ListFormats/ListRecords``,
    /// runs a version shares with the one before it — as
    /// `StagedChangeset(middlesOf:to:section:knownEqualEnds:)` computes it; paths are in
    /// section 0. Only the records the stages name are looked up: nothing is copied whole.
    public static func stages<Records: RangeReplaceableCollection & RandomAccessCollection>(
        of changeset: StagedChangeset<Records>, source: ParsedList, sourceRecords: Records, target: ParsedList, targetRecords: Records
    ) -> [ChangesetStage] where Records.Element == ListRecord, Records.Index == Int {
        contents(of: changeset, source: source, sourceRecords: sourceRecords, target: target, targetRecords: targetRecords)
            .map(ChangesetStage.init)
    }

    /// The JSON encoding of a changeset from `source`'s sections to `target`'s: the bytes
    /// ``encode(_:)-([ChangesetStage])`` writes for its ``stages(of:source:target:)-(StagedChangeset<[ArraySection<SectionModel,ListRecord>]>,_,_)``,
    /// written straight from the records' bytes (see ``append(_:to:)``).
    public static func encode(
        _ changeset: StagedChangeset<[ArraySection<SectionModel, ListRecord>]>, source: ParsedList, target: ParsedList
    ) -> [UInt8] {
        encode(contents(of: changeset, source: source, target: target), target: target)
    }

    /// The JSON encoding of a changeset from `source`'s records to `target`'s, written straight
    /// from the records' bytes.
    public static func encode(_ changeset: StagedChangeset<[ListRecord]>, source: ParsedList, target: ParsedList) -> [UInt8] {
        encode(contents(of: changeset, source: source, target: target), target: target)
    }

    /// The encoding of `contents`, in an array sized by ``estimatedByteCount(of:target:)``.
    private static func encode(_ contents: [ListedContents], target: ParsedList) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(estimatedByteCount(of: contents, target: target))
        append(contents, to: &output)
        return output
    }

    /// Appends the JSON encoding of the stages `contents` describe, each record read from its
    /// list's bytes as it is written: a change of every row holds no value per record beside the
    /// output (issue 19); with `spill`, the output goes to it between entries once long, so
    /// memory holds a bounded stretch of it. O(output size).
    static func append(_ contents: [ListedContents], to output: inout [UInt8], spill: (any LineSpill)? = nil) {
        appendArray(of: contents, to: &output) { $0.appendJSON(to: &$1, spill: spill) }
    }

    /// `[…]`, each stage written by `appendStage`, with commas between.
    private static func appendArray<Stage>(of stages: [Stage], to output: inout [UInt8], _ appendStage: (Stage, inout [UInt8]) -> Void) {
        output.append(UInt8(ascii: "["))
        for (index, stage) in stages.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendStage(stage, &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// The JSON encoding of a changeset from `sourceRecords`, the records of `source`, to
    /// `targetRecords`, those of `target` (see ``stages(of:source:sourceRecords:target:targetRecords:)``).
    public static func encode<Records: RangeReplaceableCollection & RandomAccessCollection>(
        _ changeset: StagedChangeset<Records>, source: ParsedList, sourceRecords: Records, target: ParsedList, targetRecords: Records
    ) -> [UInt8] where Records.Element == ListRecord, Records.Index == Int {
        encode(contents(of: changeset, source: source, sourceRecords: sourceRecords, target: target, targetRecords: targetRecords), target: target)
    }

    /// The JSON encoding of stages: a compact JSON array, one object per
    /// stage. O(output size).
    ///
    /// Written straight into the bytes, member by member, with no `ListValue` tree of the
    /// changeset beside them (issue 19: a change of every row of a 200k-row list held that tree,
    /// 38 MiB, while it was written).
    public static func encode(_ stages: [ChangesetStage]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        appendArray(of: stages, to: &output) { $0.appendJSON(to: &$1) }
        return output
    }

    /// The JSON encoding of one stage: an object, one element of ``encode(_:)-([ChangesetStage])``'s
    /// array (`listsync diff --format ndjson` prints one a line).
    public static func encode(_ stage: ChangesetStage) -> [UInt8] {
        var output: [UInt8] = []
        stage.appendJSON(to: &output)
        return output
    }
}

extension ListValue {
    static func integer(_ value: Int) -> ListValue {
        .number(String(value))
    }

    /// `[section, element]`.
    static func path(_ path: ElementPath) -> ListValue {
        .array([.integer(path.section), .integer(path.element)])
    }
}
