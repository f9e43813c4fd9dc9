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
        stages(of: changeset, source: source, sourceRecords: source.records, target: target, targetRecords: target.records)
    }

    /// The stages of a changeset from `sourceRecords`, the records of `source`, to
    /// `targetRecords`, those of `target`, held in any collection — ``ListFormats/ListRecords``,
    /// runs a version shares with the one before it — as
    /// `StagedChangeset(middlesOf:to:section:knownEqualEnds:)` computes it; paths are in
    /// section 0. Only the records the stages name are looked up: nothing is copied whole.
    public static func stages<Records: RangeReplaceableCollection & RandomAccessCollection>(
        of changeset: StagedChangeset<Records>, source: ParsedList, sourceRecords: Records, target: ParsedList, targetRecords: Records
    ) -> [ChangesetStage] where Records.Element == ListRecord, Records.Index == Int {
        changeset.map { stage in
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

    /// The JSON encoding of a changeset from `sourceRecords`, the records of `source`, to
    /// `targetRecords`, those of `target` (see ``stages(of:source:sourceRecords:target:targetRecords:)``).
    public static func encode<Records: RangeReplaceableCollection & RandomAccessCollection>(
        _ changeset: StagedChangeset<Records>, source: ParsedList, sourceRecords: Records, target: ParsedList, targetRecords: Records
    ) -> [UInt8] where Records.Element == ListRecord, Records.Index == Int {
        encode(stages(of: changeset, source: source, sourceRecords: sourceRecords, target: target, targetRecords: targetRecords))
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
        output.append(UInt8(ascii: "["))
        for (index, stage) in stages.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            stage.appendJSON(to: &output)
        }
        output.append(UInt8(ascii: "]"))
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

/// Appends the parts of a stage's encoding: compact JSON, members in a fixed order.
private struct StageJSON: ~Copyable {
    var output: [UInt8]
    private var needsComma = false

    init(_ output: consuming [UInt8]) {
        self.output = output
    }

    /// `{`, and the first member or element needs no comma.
    mutating func open(_ bracket: Unicode.Scalar) {
        output.append(UInt8(ascii: bracket))
        needsComma = false
    }

    mutating func close(_ bracket: Unicode.Scalar) {
        output.append(UInt8(ascii: bracket))
        needsComma = true
    }

    /// A comma when something came before, then `"name":`.
    mutating func name(_ name: String) {
        separate()
        JSONText.appendString(name, to: &output)
        output.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A comma when something came before (an element of an array).
    mutating func separate() {
        if needsComma { output.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    mutating func value(_ value: ListValue) {
        separate()
        JSONText.append(value, to: &output)
        needsComma = true
    }

    mutating func string(_ string: String) {
        separate()
        JSONText.appendString(string, to: &output)
        needsComma = true
    }

    mutating func integer(_ integer: Int) {
        separate()
        output.append(contentsOf: String(integer).utf8)
        needsComma = true
    }

    /// `[section,element]`.
    mutating func path(_ path: ElementPath) {
        pair(path.section, path.element)
    }

    mutating func pair(_ first: Int, _ second: Int) {
        separate()
        open("[")
        integer(first)
        integer(second)
        close("]")
    }

    /// `"name":[…]` with `body` writing the elements, when there are any.
    mutating func array<Element>(_ name: String, _ elements: [Element], _ body: (inout StageJSON, Element) -> Void) {
        guard !elements.isEmpty else { return }
        self.name(name)
        open("[")
        for element in elements {
            body(&self, element)
        }
        close("]")
    }
}

extension ChangesetStage {
    /// Appends the stage's encoding: an object with one member per kind of operation it has, in
    /// a fixed order.
    func appendJSON(to output: inout [UInt8]) {
        var json = StageJSON(output)
        output = []
        json.open("{")
        json.array(ChangesetField.sectionDeleted, sectionDeleted) { $0.integer($1) }
        json.array(ChangesetField.sectionInserted, sectionInserted) { json, inserted in
            inserted.section.openObject(at: inserted.index, in: &json)
            // An inserted section always names its records, even none.
            json.name(ChangesetField.records)
            json.open("[")
            for record in inserted.records {
                json.separate()
                json.open("{")
                record.appendMembers(to: &json)
                json.close("}")
            }
            json.close("]")
            json.close("}")
        }
        json.array(ChangesetField.sectionMoved, sectionMoved) { $0.pair($1.source, $1.target) }
        json.array(ChangesetField.sectionUpdated, sectionUpdated) { json, updated in
            updated.section.openObject(at: updated.index, in: &json)
            json.close("}")
        }
        json.array(ChangesetField.elementDeleted, elementDeleted) { $0.path($1) }
        json.array(ChangesetField.elementInserted, elementInserted) { $1.appendJSON(to: &$0) }
        json.array(ChangesetField.elementUpdated, elementUpdated) { $1.appendJSON(to: &$0) }
        json.array(ChangesetField.elementMoved, elementMoved) { json, move in
            json.separate()
            json.open("[")
            json.path(move.source)
            json.path(move.target)
            json.close("]")
        }
        json.array(ChangesetField.elementDeletedKeys, elementDeletedKeys) { $0.value(.array($1)) }
        json.array(ChangesetField.elementMovedKeys, elementMovedKeys) { $0.value(.array($1)) }
        json.close("}")
        output = json.output
    }
}

extension ChangesetStage.Record {
    /// `"hash":…,"value":…`.
    fileprivate func appendMembers(to json: inout StageJSON) {
        json.name(ChangesetField.hash)
        json.string(hash.description)
        json.name(ChangesetField.value)
        json.value(value)
    }
}

extension ChangesetStage.Section {
    /// `{"index":…,"model":…,"hash":…` — an inserted or updated section's object, left open for
    /// what follows.
    fileprivate func openObject(at index: Int, in json: inout StageJSON) {
        json.separate()
        json.open("{")
        json.name(ChangesetField.index)
        json.integer(index)
        json.name(ChangesetField.model)
        json.value(model)
        json.name(ChangesetField.hash)
        json.string(hash.description)
    }
}

extension ChangesetStage.PlacedRecord {
    /// `{"at":[s,e],"key":[…],"hash":…,"value":…}` (`key` only for a keyed list).
    fileprivate func appendJSON(to json: inout StageJSON) {
        json.separate()
        json.open("{")
        json.name(ChangesetField.at)
        json.path(path)
        if let key {
            json.name(ChangesetField.key)
            json.value(.array(key))
        }
        record.appendMembers(to: &json)
        json.close("}")
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
