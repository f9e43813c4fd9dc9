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
        let sourceSections = source.sections
        let targetSections = target.sections
        return changeset.map { stage in
            makeStage(
                stage, target: target, section: { stage.section(at: $0) }, record: { stage.element(at: $0) },
                keys: Keys(
                    source: source, target: target,
                    sourceRecord: { sourceSections[$0.section].elements[$0.element] },
                    targetRecord: { targetSections[$0.section].elements[$0.element] }))
        }
    }

    /// The stages of a changeset from `source`'s records to `target`'s, as
    /// `StagedChangeset(source:target:)` computes it; paths are in section 0.
    public static func stages(of changeset: StagedChangeset<[ListRecord]>, source: ParsedList, target: ParsedList) -> [ChangesetStage] {
        let sourceRecords = source.records
        let targetRecords = target.records
        return changeset.map { stage in
            // A linear changeset has no section operations, so `section` is never called.
            makeStage(
                stage, target: target, section: { _ in ArraySection(model: SectionModel(value: .null), elements: []) },
                record: { stage.element(at: $0.element) },
                keys: Keys(
                    source: source, target: target, sourceRecord: { sourceRecords[$0.element] },
                    targetRecord: { targetRecords[$0.element] }))
        }
    }

    /// Where the keys of deleted and moved records are read: the record at a path of the source,
    /// or of the target.
    private struct Keys {
        let source: ParsedList
        let target: ParsedList
        let sourceRecord: (ElementPath) -> ListRecord
        let targetRecord: (ElementPath) -> ListRecord
    }

    /// One stage, with the values of what it inserts and updates looked up
    /// through `section` and `record`, and the keys through `keys`.
    private static func makeStage<Collection>(
        _ stage: Changeset<Collection>, target: ParsedList, section: (Int) -> ArraySection<SectionModel, ListRecord>,
        record: (ElementPath) -> ListRecord, keys: Keys
    ) -> ChangesetStage {
        let isKeyed = target.hasKey
        func placed(_ path: ElementPath) -> ChangesetStage.PlacedRecord {
            let placed = record(path)
            let (value, key) = target.valueAndKey(of: placed)
            return ChangesetStage.PlacedRecord(path: path, record: ChangesetStage.Record(value: value, hash: placed.contentHash), key: key)
        }
        return ChangesetStage(
            sectionDeleted: stage.sectionDeleted,
            sectionInserted: stage.sectionInserted.map { index in
                let inserted = section(index)
                return ChangesetStage.InsertedSection(
                    index: index, section: ChangesetStage.Section(inserted.model),
                    records: inserted.elements.map { ChangesetStage.Record($0, of: target) })
            },
            sectionMoved: stage.sectionMoved.map { ChangesetStage.Move(source: $0.source, target: $0.target) },
            sectionUpdated: stage.sectionUpdated.map { index in
                ChangesetStage.UpdatedSection(index: index, section: ChangesetStage.Section(section(index).model))
            },
            elementDeleted: stage.elementDeleted,
            elementInserted: stage.elementInserted.map(placed),
            elementUpdated: stage.elementUpdated.map(placed),
            elementMoved: stage.elementMoved.map { ChangesetStage.Move(source: $0.source, target: $0.target) },
            elementDeletedKeys: isKeyed ? stage.elementDeleted.map { keys.source.key(of: keys.sourceRecord($0)) ?? [] } : [],
            elementMovedKeys: isKeyed ? stage.elementMoved.map { keys.target.key(of: keys.targetRecord($0.target)) ?? [] } : [])
    }

    /// The JSON encoding of a changeset from `source`'s sections to `target`'s.
    public static func encode(
        _ changeset: StagedChangeset<[ArraySection<SectionModel, ListRecord>]>, source: ParsedList, target: ParsedList
    ) -> [UInt8] {
        encode(stages(of: changeset, source: source, target: target))
    }

    /// The JSON encoding of a changeset from `source`'s records to `target`'s.
    public static func encode(_ changeset: StagedChangeset<[ListRecord]>, source: ParsedList, target: ParsedList) -> [UInt8] {
        encode(stages(of: changeset, source: source, target: target))
    }

    /// The JSON encoding of stages: a compact JSON array, one object per
    /// stage. O(output size).
    public static func encode(_ stages: [ChangesetStage]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        JSONText.append(value(of: stages), to: &output)
        return output
    }

    /// The encoding of stages as a value (a JSON array).
    public static func value(of stages: [ChangesetStage]) -> ListValue {
        .array(stages.map(\.encodedValue))
    }
}

extension ChangesetStage {
    /// The stage's encoding: an object with one member per kind of operation
    /// it has, in a fixed order.
    var encodedValue: ListValue {
        var members: [ListValue.Member] = []
        func add(_ name: String, _ elements: [ListValue]) {
            if !elements.isEmpty { members.append(ListValue.Member(name: name, value: .array(elements))) }
        }
        add(ChangesetField.sectionDeleted, sectionDeleted.map(ListValue.integer))
        add(ChangesetField.sectionInserted, sectionInserted.map { inserted in
            .object(
                [ListValue.Member(name: ChangesetField.index, value: .integer(inserted.index))]
                    + inserted.section.encodedMembers
                    + [ListValue.Member(name: ChangesetField.records, value: .array(inserted.records.map { .object($0.encodedMembers) }))])
        })
        add(ChangesetField.sectionMoved, sectionMoved.map { .array([.integer($0.source), .integer($0.target)]) })
        add(ChangesetField.sectionUpdated, sectionUpdated.map { updated in
            .object([ListValue.Member(name: ChangesetField.index, value: .integer(updated.index))] + updated.section.encodedMembers)
        })
        add(ChangesetField.elementDeleted, elementDeleted.map(ListValue.path))
        add(ChangesetField.elementInserted, elementInserted.map(\.encodedValue))
        add(ChangesetField.elementUpdated, elementUpdated.map(\.encodedValue))
        add(ChangesetField.elementMoved, elementMoved.map { .array([.path($0.source), .path($0.target)]) })
        add(ChangesetField.elementDeletedKeys, elementDeletedKeys.map(ListValue.array))
        add(ChangesetField.elementMovedKeys, elementMovedKeys.map(ListValue.array))
        return .object(members)
    }
}

extension ChangesetStage.Record {
    var encodedMembers: [ListValue.Member] {
        [
            ListValue.Member(name: ChangesetField.hash, value: .string(hash.description)),
            ListValue.Member(name: ChangesetField.value, value: value),
        ]
    }
}

extension ChangesetStage.Section {
    var encodedMembers: [ListValue.Member] {
        [
            ListValue.Member(name: ChangesetField.model, value: model),
            ListValue.Member(name: ChangesetField.hash, value: .string(hash.description)),
        ]
    }
}

extension ChangesetStage.PlacedRecord {
    var encodedValue: ListValue {
        .object(
            [ListValue.Member(name: ChangesetField.at, value: .path(path))]
                + (key.map { [ListValue.Member(name: ChangesetField.key, value: .array($0))] } ?? []) + record.encodedMembers)
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
