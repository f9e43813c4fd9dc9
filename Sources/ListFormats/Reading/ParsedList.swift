import DurableFiles
import ListDiff

/// A list as read from a file: its schema, its records (in sections or not)
/// and what the reader noticed along the way.
///
/// Records are slices of the file's bytes, which the list keeps; values are
/// decoded only for the records that are asked for.
public struct ParsedList: Sendable {
    /// The format the file was read as.
    public let format: ListFormat

    /// The columns (CSV header, or JSON members of object records).
    public let schema: ListSchema

    /// The records, as one list or in sections.
    public let layout: ListLayout

    /// Counts and warnings from the read.
    public let report: ReadReport

    let storage: ListStorage

    init(format: ListFormat, schema: ListSchema, layout: ListLayout, report: ReadReport, storage: ListStorage) {
        self.format = format
        self.schema = schema
        self.layout = layout
        self.report = report
        self.storage = storage
    }

    /// The list as sections, ready for `StagedChangeset(source:target:)`.
    /// A linear list is one section whose model is ``ListValue/null``: O(1) when its records
    /// are one array, a copy of them, O(*n*), when they are runs shared with another version
    /// (prefer ``linearRecords`` there).
    public var sections: [ArraySection<SectionModel, ListRecord>] {
        switch layout {
        case .linear(let records): [ArraySection(model: SectionModel(value: .null), elements: records.array)]
        case .sectioned(let sections): sections
        }
    }

    /// All records in file order (sections one after the other): O(1) for a linear list whose
    /// records are one array, a copy otherwise (prefer ``linearRecords`` for a linear list).
    public var records: [ListRecord] {
        switch layout {
        case .linear(let records): records.array
        case .sectioned(let sections): sections.flatMap(\.elements)
        }
    }

    /// The records of a linear list as they are held (`nil` for a sectioned list), O(1): one
    /// run of an array, or — a version an ``IncrementalListReader`` read after another — runs it
    /// shares with that version. What the daemon diffs, digests and encodes a version from
    /// without copying its records (issue 19).
    public var linearRecords: ListRecords? {
        guard case .linear(let records) = layout else { return nil }
        return records
    }

    /// Whether records are identified by key fields (rather than by their content).
    public var hasKey: Bool {
        storage.encoding.isKeyed
    }

    /// Whether the list is sectioned.
    public var isSectioned: Bool {
        if case .sectioned = layout { return true }
        return false
    }

    /// The file's bytes as one array: O(1) for a list read from one array; a copy of them, O(*n*),
    /// for a list whose bytes are in pieces (``IncrementalListReader/read(bytes:shared:recycling:hashes:)``
    /// given ``FileBytes`` that share storage with another version) or read by
    /// ``ListReader/read(mappingFile:)``. Prefer ``fileBytes``.
    public var bytes: [UInt8] {
        storage.source.array
    }

    /// The file's bytes as ``FileBytes``: those the list holds, O(1), in the pieces they were read
    /// in (a copy of them for a list read by ``ListReader/read(mappingFile:)``).
    public var fileBytes: FileBytes {
        storage.source.fileBytes
    }

    /// The same list over `bytes`, which must be the same bytes as ``fileBytes`` (the records are
    /// ranges of them), held otherwise: issue 19's daemon swaps a saved version's bytes in memory
    /// for mappings of the state files that hold them. O(1): the records are shared.
    public func holding(_ bytes: FileBytes) -> ParsedList {
        holding(bytes, records: nil)
    }

    /// The same list over `bytes` (``holding(_:)``; `nil`: its own) and, for a linear list,
    /// `records`, which must be the same records as ``linearRecords`` held otherwise: issue 19's
    /// daemon swaps a saved version's records in memory for mappings of a file it wrote them to.
    /// O(1) (O(*n*) checks in debug builds).
    public func holding(_ bytes: FileBytes?, records: ListRecords?) -> ParsedList {
        precondition(bytes.map { $0.count == storage.source.count } ?? true, "other bytes than the list's")
        var layout = self.layout
        if let records, case .linear(let own) = layout {
            precondition(records.count == own.count, "other records than the list's")
            assert(records.elementsEqual(own) { $0.byteRange == $1.byteRange && $0.contentHash == $1.contentHash && $0.differenceIdentifier == $1.differenceIdentifier }, "other records than the list's")
            layout = .linear(records)
        }
        let held = bytes.map { ListStorage(source: .bytes($0), encoding: storage.encoding) } ?? storage
        return ParsedList(format: format, schema: schema, layout: layout, report: report, storage: held)
    }

    /// The line and column of a byte offset, such as a record's
    /// ``ListRecord/byteOffset``. O(offset); for many positions use
    /// ``makeLocator()``.
    public func position(ofByteOffset offset: Int) -> SourcePosition {
        storage.source.withUnsafeBufferPointer { SourceLocator.position(ofByteOffset: offset, in: $0) }
    }

    /// A locator for many positions in this file. O(file size) once (and a copy of the bytes
    /// when they are in pieces).
    public func makeLocator() -> SourceLocator {
        SourceLocator(bytes: storage.source.array)
    }
}
