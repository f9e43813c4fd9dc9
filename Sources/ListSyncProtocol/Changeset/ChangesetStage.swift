import ListDiff
import ListFormats

/// One stage of a staged changeset as values: its operations, and the values
/// and hashes of the records and sections it inserts or updates. This is what
/// goes over the wire (see *Changeset encoding* in docs/PROTOCOL.md) and what
/// a mirror applies.
///
/// Index spaces are `ListDiff`'s: deletions, updates and move sources name
/// positions before the stage; insertions and move targets positions after
/// it. Linear lists use section 0.
public struct ChangesetStage: Hashable, Sendable {
    /// Sections deleted, at their index before the stage.
    public var sectionDeleted: [Int]
    /// Sections inserted with their records, at their index after the stage.
    public var sectionInserted: [InsertedSection]
    /// Sections moved.
    public var sectionMoved: [Move<Int>]
    /// Sections whose model changed, with the new model.
    public var sectionUpdated: [UpdatedSection]
    /// Records deleted, at their path before the stage.
    public var elementDeleted: [ElementPath]
    /// Records inserted, at their path after the stage.
    public var elementInserted: [PlacedRecord]
    /// Records whose content changed, at their path before the stage, with
    /// their new value.
    public var elementUpdated: [PlacedRecord]
    /// Records moved.
    public var elementMoved: [Move<ElementPath>]
    /// The keys of the records deleted, in the order of ``elementDeleted``; empty when the list
    /// has no key.
    public var elementDeletedKeys: [RecordKey]
    /// The keys of the records moved, in the order of ``elementMoved``; empty when the list has no
    /// key.
    public var elementMovedKeys: [RecordKey]

    /// The values of a record's key fields, in key order: for CSV the fields' strings, for JSON
    /// the values at the key paths (`null` where a record has none). A record's key names it
    /// where a position alone would need the old file.
    public typealias RecordKey = [ListValue]

    /// Creates a stage.
    public init(
        sectionDeleted: [Int] = [], sectionInserted: [InsertedSection] = [], sectionMoved: [Move<Int>] = [],
        sectionUpdated: [UpdatedSection] = [], elementDeleted: [ElementPath] = [], elementInserted: [PlacedRecord] = [],
        elementUpdated: [PlacedRecord] = [], elementMoved: [Move<ElementPath>] = [], elementDeletedKeys: [RecordKey] = [],
        elementMovedKeys: [RecordKey] = []
    ) {
        self.sectionDeleted = sectionDeleted
        self.sectionInserted = sectionInserted
        self.sectionMoved = sectionMoved
        self.sectionUpdated = sectionUpdated
        self.elementDeleted = elementDeleted
        self.elementInserted = elementInserted
        self.elementUpdated = elementUpdated
        self.elementMoved = elementMoved
        self.elementDeletedKeys = elementDeletedKeys
        self.elementMovedKeys = elementMovedKeys
    }

    /// A record's value and content hash.
    public struct Record: Hashable, Sendable {
        /// The record's value.
        public var value: ListValue
        /// The record's content hash (without ignored fields), for digests.
        public var hash: ContentHash

        /// Creates a record.
        public init(value: ListValue, hash: ContentHash) {
            self.value = value
            self.hash = hash
        }

        /// The value and hash of `record`, one of the records of `list`.
        /// O(record size).
        public init(_ record: ListRecord, of list: ParsedList) {
            self.init(value: list.value(of: record), hash: record.contentHash)
        }
    }

    /// A section model's value and hash.
    public struct Section: Hashable, Sendable {
        /// The model's value.
        public var model: ListValue
        /// The model's content hash.
        public var hash: ContentHash

        /// Creates a section.
        public init(model: ListValue, hash: ContentHash) {
            self.model = model
            self.hash = hash
        }

        /// The value and hash of a section model.
        public init(_ model: SectionModel) {
            self.init(model: model.value, hash: model.contentHash)
        }
    }

    /// A section inserted with its records.
    public struct InsertedSection: Hashable, Sendable {
        /// The section's index after the stage.
        public var index: Int
        /// The section's model.
        public var section: Section
        /// The section's records, in order.
        public var records: [Record]

        /// Creates an inserted section.
        public init(index: Int, section: Section, records: [Record]) {
            self.index = index
            self.section = section
            self.records = records
        }
    }

    /// A section whose model changed.
    public struct UpdatedSection: Hashable, Sendable {
        /// The section's index (the same before and after the stage).
        public var index: Int
        /// The new model.
        public var section: Section

        /// Creates an updated section.
        public init(index: Int, section: Section) {
            self.index = index
            self.section = section
        }
    }

    /// A record at a path.
    public struct PlacedRecord: Hashable, Sendable {
        /// Where the record is (before the stage for an update, after it for an insert).
        public var path: ElementPath
        /// The record's value and hash.
        public var record: Record
        /// The record's key; `nil` when the list has no key.
        public var key: RecordKey?

        /// Creates a placed record.
        public init(path: ElementPath, record: Record, key: RecordKey? = nil) {
            self.path = path
            self.record = record
            self.key = key
        }
    }

    /// A move from a position before the stage to one after it.
    public struct Move<Position: Hashable & Sendable>: Hashable, Sendable {
        /// The position before the stage.
        public var source: Position
        /// The position after the stage.
        public var target: Position

        /// Creates a move.
        public init(source: Position, target: Position) {
            self.source = source
            self.target = target
        }
    }
}
