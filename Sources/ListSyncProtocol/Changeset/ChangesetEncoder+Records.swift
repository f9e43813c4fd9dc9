import ListDiff
import ListFormats

/// A changeset's stages as their encoding writes them, read from the lists the changeset was
/// computed between: each record's value and key are read from its bytes only when the encoding
/// writes it, and dropped right after. ``ChangesetEncoder/stages(of:source:target:)-(StagedChangeset<[ArraySection<SectionModel,ListRecord>]>,_,_)``
/// keeps them as ``ChangesetStage``s; ``ChangesetEncoder/append(_:source:target:to:)-(StagedChangeset<[ArraySection<SectionModel,ListRecord>]>,_,_,_)``
/// writes them straight into the output, so that a change of every row holds no value per
/// record beside the encoding (issue 19).
extension ChangesetEncoder {
    /// Where the records a stage names are read: its sections and records after the stage, and
    /// the records at a path of the source (deleted ones) or of the target (moved ones).
    struct Lookup {
        let source: ParsedList
        let target: ParsedList
        let section: (Int) -> ArraySection<SectionModel, ListRecord>
        let record: (ElementPath) -> ListRecord
        let sourceRecord: (ElementPath) -> ListRecord
        let targetRecord: (ElementPath) -> ListRecord
    }

    typealias ListedContents = StageContents<
        LazyMapCollection<[Int], ListedInsertedSection>, LazyMapCollection<[ElementPath], ListedPlacedRecord>,
        LazyMapCollection<[ElementPath], ChangesetStage.RecordKey>,
        LazyMapCollection<[(source: ElementPath, target: ElementPath)], ChangesetStage.RecordKey>
    >

    /// What each stage of a changeset from `source`'s sections to `target`'s writes.
    static func contents(
        of changeset: StagedChangeset<[ArraySection<SectionModel, ListRecord>]>, source: ParsedList, target: ParsedList
    ) -> [ListedContents] {
        let sourceSections = source.sections
        let targetSections = target.sections
        return changeset.map { stage in
            contents(
                of: stage,
                Lookup(
                    source: source, target: target, section: { stage.section(at: $0) }, record: { stage.element(at: $0) },
                    sourceRecord: { sourceSections[$0.section].elements[$0.element] },
                    targetRecord: { targetSections[$0.section].elements[$0.element] }))
        }
    }

    /// What each stage of a changeset from `source`'s records to `target`'s writes; paths are in
    /// section 0.
    static func contents(of changeset: StagedChangeset<[ListRecord]>, source: ParsedList, target: ParsedList) -> [ListedContents] {
        contents(of: changeset, source: source, sourceRecords: source.records, target: target, targetRecords: target.records)
    }

    /// What each stage of a changeset from `sourceRecords`, the records of `source`, to
    /// `targetRecords`, those of `target`, held in any collection (``ListFormats/ListRecords``:
    /// runs shared between versions), writes; paths are in section 0. Only the records the
    /// stages name are looked up.
    static func contents<Records: RangeReplaceableCollection & RandomAccessCollection>(
        of changeset: StagedChangeset<Records>, source: ParsedList, sourceRecords: Records, target: ParsedList, targetRecords: Records
    ) -> [ListedContents] where Records.Element == ListRecord, Records.Index == Int {
        changeset.map { stage in
            // A linear changeset has no section operations, so `section` is never called.
            contents(
                of: stage,
                Lookup(
                    source: source, target: target, section: { _ in ArraySection(model: SectionModel(value: .null), elements: []) },
                    record: { stage.element(at: $0.element) }, sourceRecord: { sourceRecords[$0.element] },
                    targetRecord: { targetRecords[$0.element] }))
        }
    }

    /// One stage: what it inserts and updates read through `lookup.section` and `lookup.record`
    /// from the target, the keys of what it deletes from the source and of what it moves from the
    /// target (only when the lists have a key).
    private static func contents<Collection>(of stage: Changeset<Collection>, _ lookup: Lookup) -> ListedContents {
        let target = lookup.target
        let isKeyed = target.hasKey
        let placed = { (path: ElementPath) in ListedPlacedRecord(path: path, record: lookup.record(path), list: target) }
        return StageContents(
            sectionDeleted: stage.sectionDeleted,
            sectionInserted: stage.sectionInserted.lazy.map { index in
                let inserted = lookup.section(index)
                return ListedInsertedSection(index: index, section: ChangesetStage.Section(inserted.model), elements: inserted.elements, list: target)
            },
            sectionMoved: stage.sectionMoved.map { ChangesetStage.Move(source: $0.source, target: $0.target) },
            sectionUpdated: stage.sectionUpdated.map { index in
                ChangesetStage.UpdatedSection(index: index, section: ChangesetStage.Section(lookup.section(index).model))
            },
            elementDeleted: stage.elementDeleted,
            elementInserted: stage.elementInserted.lazy.map(placed),
            elementUpdated: stage.elementUpdated.lazy.map(placed),
            elementMoved: stage.elementMoved.map { ChangesetStage.Move(source: $0.source, target: $0.target) },
            elementDeletedKeys: (isKeyed ? stage.elementDeleted : []).lazy.map { lookup.source.key(of: lookup.sourceRecord($0)) ?? [] },
            elementMovedKeys: (isKeyed ? stage.elementMoved : []).lazy.map { lookup.target.key(of: lookup.targetRecord($0.target)) ?? [] })
    }

    /// A generous estimate of the bytes of the encoding of `contents` (an estimate above the
    /// encoding costs address space, not memory: the pages past the encoding are never touched;
    /// one below it makes the output grow once, by a copy). O(stages' operations).
    static func estimatedByteCount(of contents: [ListedContents], target: ParsedList) -> Int {
        // A CSV record's value names each column: `"name":"…",` around its fields.
        let columns = target.format.hasHeader ? target.schema.columns.reduce(2) { $0 + $1.utf8.count + 8 } : 0
        func record(_ record: ListRecord) -> Int {
            // `{"hash":"<16 hex digits>","value":…}`, the value about the record's bytes.
            record.byteRange.count + columns + 40
        }
        func placed(_ placed: ListedPlacedRecord) -> Int {
            // `"at":[s,e],` and a key: its fields are a part of the record.
            record(placed.record) + 32 + (target.hasKey ? 16 + placed.record.byteRange.count / 2 : 0)
        }
        var estimate = 2
        for stage in contents {
            estimate += 200
            estimate += stage.sectionInserted.reduce(0) { sum, section in sum + 200 + section.elements.reduce(0) { $0 + record($1) } }
            estimate += stage.elementInserted.reduce(0) { $0 + placed($1) } + stage.elementUpdated.reduce(0) { $0 + placed($1) }
            estimate += (stage.sectionDeleted.count + stage.sectionMoved.count + stage.sectionUpdated.count) * 200
            estimate += (stage.elementDeleted.count + stage.elementMoved.count) * 64
            estimate += (stage.elementDeletedKeys.count + stage.elementMovedKeys.count) * 64
        }
        return estimate + estimate / 8
    }
}

/// A record of `list` that a stage carries in an inserted section, read from its bytes as it is
/// written.
struct ListedRecord: StageRecordJSON {
    let record: ListRecord
    let list: ParsedList

    func appendMembers(to json: inout StageJSON) {
        json.record(hash: record.contentHash) { json in json.value { list.appendValueJSON(of: record, to: &$0) } }
    }

    /// The record as a value.
    var stageRecord: ChangesetStage.Record {
        ChangesetStage.Record(record, of: list)
    }
}

/// A section a stage inserts, its records read from `list` as they are written.
struct ListedInsertedSection: StageInsertedSectionJSON {
    let index: Int
    let section: ChangesetStage.Section
    let elements: [ListRecord]
    let list: ParsedList

    var records: LazyMapCollection<[ListRecord], ListedRecord> {
        let list = self.list
        return elements.lazy.map { ListedRecord(record: $0, list: list) }
    }

    /// The section with its records as values.
    var stageSection: ChangesetStage.InsertedSection {
        ChangesetStage.InsertedSection(index: index, section: section, records: records.map(\.stageRecord))
    }
}

/// A record of `list` at a path, that a stage inserts or updates, read from its bytes as it is
/// written: a CSV record's value straight from its row, a JSON record's from one decoding that
/// gives its key too.
struct ListedPlacedRecord: StagePlacedRecordJSON {
    let path: ElementPath
    let record: ListRecord
    let list: ParsedList

    func appendJSON(to json: inout StageJSON) {
        if list.format.hasHeader {
            json.placedRecord(at: path, key: list.key(of: record), hash: record.contentHash) { json in
                json.value { list.appendValueJSON(of: record, to: &$0) }
            }
        } else {
            let (value, key) = list.valueAndKey(of: record)
            json.placedRecord(at: path, key: key, hash: record.contentHash) { $0.value(value) }
        }
    }

    /// The record as a value, with its key.
    var stagePlacedRecord: ChangesetStage.PlacedRecord {
        let (value, key) = list.valueAndKey(of: record)
        return ChangesetStage.PlacedRecord(path: path, record: ChangesetStage.Record(value: value, hash: record.contentHash), key: key)
    }
}

extension ChangesetStage {
    /// The stage `contents` describe, its records' values read from their list.
    init(_ contents: ChangesetEncoder.ListedContents) {
        self.init(
            sectionDeleted: contents.sectionDeleted, sectionInserted: contents.sectionInserted.map(\.stageSection),
            sectionMoved: contents.sectionMoved, sectionUpdated: contents.sectionUpdated, elementDeleted: contents.elementDeleted,
            elementInserted: contents.elementInserted.map(\.stagePlacedRecord), elementUpdated: contents.elementUpdated.map(\.stagePlacedRecord),
            elementMoved: contents.elementMoved, elementDeletedKeys: Array(contents.elementDeletedKeys),
            elementMovedKeys: Array(contents.elementMovedKeys))
    }
}
