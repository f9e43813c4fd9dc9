import ListDiff
import ListFormats

/// Appends the parts of a stage's encoding: compact JSON, members in a fixed order.
struct StageJSON: ~Copyable {
    var output: [UInt8]
    private var needsComma = false
    /// Where the output goes once it is long (``LineSpill``); `nil`: it all stays in ``output``.
    private let spill: (any LineSpill)?

    init(_ output: consuming [UInt8], spill: (any LineSpill)? = nil) {
        self.output = output
        self.spill = spill
    }

    /// Hands the output to the spill when it reached its threshold: called between entries,
    /// so memory holds about a threshold of the line and an entry.
    mutating func spillIfFull() {
        self.spill?.spillIfFull(&output)
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

    /// A value that `write` appends as JSON (a record's, straight from its bytes).
    mutating func value(writtenBy write: (inout [UInt8]) -> Void) {
        separate()
        write(&output)
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
    mutating func array<Elements: Collection>(_ name: String, _ elements: Elements, _ body: (inout StageJSON, Elements.Element) -> Void) {
        guard !elements.isEmpty else { return }
        self.name(name)
        open("[")
        for element in elements {
            body(&self, element)
            spillIfFull()
        }
        close("]")
    }
}

/// A record a stage carries, as its encoding writes it: `"hash":…,"value":…`.
protocol StageRecordJSON {
    func appendMembers(to json: inout StageJSON)
}

/// A record at a path a stage inserts or updates, as its encoding writes it:
/// `{"at":[s,e],"key":[…],"hash":…,"value":…}` (`key` only for a keyed list).
protocol StagePlacedRecordJSON {
    func appendJSON(to json: inout StageJSON)
}

/// A section a stage inserts, as its encoding writes it: its index, model and records.
protocol StageInsertedSectionJSON {
    associatedtype Records: Collection where Records.Element: StageRecordJSON
    var index: Int { get }
    var section: ChangesetStage.Section { get }
    var records: Records { get }
}

/// What one stage's encoding writes, however its records are held: a ``ChangesetStage``'s values,
/// or the records of the lists a changeset was computed between, each read from its bytes only
/// as it is written (``ChangesetEncoder/encode(_:source:target:)-(StagedChangeset<[ArraySection<SectionModel,ListRecord>]>,_,_)``).
/// The one place the encoding's members, their order and their shape are written.
struct StageContents<
    InsertedSections: Collection, PlacedRecords: Collection, DeletedKeys: Collection, MovedKeys: Collection
> where
    InsertedSections.Element: StageInsertedSectionJSON, PlacedRecords.Element: StagePlacedRecordJSON,
    DeletedKeys.Element == ChangesetStage.RecordKey, MovedKeys.Element == ChangesetStage.RecordKey
{
    var sectionDeleted: [Int]
    var sectionInserted: InsertedSections
    var sectionMoved: [ChangesetStage.Move<Int>]
    var sectionUpdated: [ChangesetStage.UpdatedSection]
    var elementDeleted: [ElementPath]
    var elementInserted: PlacedRecords
    var elementUpdated: PlacedRecords
    var elementMoved: [ChangesetStage.Move<ElementPath>]
    var elementDeletedKeys: DeletedKeys
    var elementMovedKeys: MovedKeys

    /// Appends the stage's encoding: an object with one member per kind of operation it has, in
    /// a fixed order; with `spill`, what is written goes to it between entries once long.
    func appendJSON(to output: inout [UInt8], spill: (any LineSpill)? = nil) {
        var json = StageJSON(output, spill: spill)
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
                json.spillIfFull()
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

extension StageJSON {
    /// `{"at":[s,e],"key":[…],"hash":…,"value":…}`, the value written by `value`; `key` only
    /// when there is one.
    mutating func placedRecord(at path: ElementPath, key: ChangesetStage.RecordKey?, hash: ContentHash, value: (inout StageJSON) -> Void) {
        separate()
        open("{")
        name(ChangesetField.at)
        self.path(path)
        if let key {
            name(ChangesetField.key)
            self.value(.array(key))
        }
        record(hash: hash, value: value)
        close("}")
    }

    /// `"hash":…,"value":…`, the value written by `value`.
    mutating func record(hash: ContentHash, value: (inout StageJSON) -> Void) {
        name(ChangesetField.hash)
        string(hash.description)
        name(ChangesetField.value)
        value(&self)
    }
}

extension ChangesetStage {
    /// What the stage's encoding writes.
    var contents: StageContents<[InsertedSection], [PlacedRecord], [RecordKey], [RecordKey]> {
        StageContents(
            sectionDeleted: sectionDeleted, sectionInserted: sectionInserted, sectionMoved: sectionMoved, sectionUpdated: sectionUpdated,
            elementDeleted: elementDeleted, elementInserted: elementInserted, elementUpdated: elementUpdated, elementMoved: elementMoved,
            elementDeletedKeys: elementDeletedKeys, elementMovedKeys: elementMovedKeys)
    }

    /// Appends the stage's encoding.
    func appendJSON(to output: inout [UInt8]) {
        contents.appendJSON(to: &output)
    }
}

extension ChangesetStage.Record: StageRecordJSON {
    func appendMembers(to json: inout StageJSON) {
        json.record(hash: hash) { $0.value(value) }
    }
}

extension ChangesetStage.InsertedSection: StageInsertedSectionJSON {}

extension ChangesetStage.PlacedRecord: StagePlacedRecordJSON {
    func appendJSON(to json: inout StageJSON) {
        json.placedRecord(at: path, key: key, hash: record.hash) { $0.value(record.value) }
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
