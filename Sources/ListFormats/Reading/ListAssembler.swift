import DurableFiles
import CListFormatsScan
import ListDiff

/// Collects the records a reader finds — identity, section, content — and
/// turns them into a ``ParsedList`` at the end.
///
/// Shared by the CSV and JSON readers, so identity, sections and duplicate
/// counting (``DuplicateCounter``) work the same for every format. Records
/// go straight into their section's array; the arrays are reserved from an
/// estimate of the record count so that they rarely grow (reserved pages that
/// are never written cost no memory).
///
/// When a list is read in two halves (``SplitRead``), the second half has an
/// assembler of its own (``init(secondHalfOf:source:estimatedCount:)``),
/// whose records are then appended.
struct ListAssembler: ~Copyable {
    let storage: ListStorage
    /// The file's bytes, for the duration of the read.
    let source: UnsafeBufferPointer<UInt8>
    private var isSectioned: Bool
    /// The records of a linear list.
    private var records: [ListRecord] = []
    private let isSecondHalf: Bool
    /// The records of a sectioned list, by section.
    private var recordsBySection: [[ListRecord]] = []
    private(set) var recordCount = 0
    private var sections = SectionTable()
    private let estimatedCount: Int
    /// A read in chunks of a list with `section_by` (``IncrementalListReader``): the records stay
    /// in file order, each with the number of its section in ``sections``, a table started afresh
    /// with each chunk (``finishChunk()``) so that what a chunk holds owes nothing to the chunks
    /// before it. `nil` for any other read.
    private var sectionOfRecord: [Int32]?

    /// The number of records the assembler was sized for.
    var estimatedRecordCount: Int { estimatedCount }
    private var duplicates: DuplicateCounter
    /// Whether the records' identity hashes go into ``duplicates``: not in a read in chunks, whose
    /// reader counts duplicates over the joined list itself (8 bytes per record saved there).
    private let countsDuplicates: Bool
    /// The identity hashes added more than once, found when the halves of a
    /// read were joined (no record comes after that).
    private var repeatedHashes: Set<UInt64>?

    /// Where the identity of the next record comes from.
    enum KeySource {
        /// A slice of the file: already canonical.
        case source(start: Int, end: Int)
        /// A key whose stable hash the reader already took.
        case hashed(ContentHash)
        /// Canonical bytes the reader built.
        case bytes(UnsafeRawBufferPointer)
        /// No key: the identity is the content hash.
        case content
    }

    /// Creates an assembler for records of `storage`, whose bytes `source`
    /// points to for the duration of the read; `estimatedCount` sizes the
    /// record arrays.
    init(storage: ListStorage, source: UnsafeBufferPointer<UInt8>, isSectioned: Bool, estimatedCount: Int) {
        self.init(storage: storage, source: source, isSectioned: isSectioned, isSecondHalf: false, estimatedCount: estimatedCount)
    }

    /// An assembler for the records of a region of a file read in chunks (``ChunkedRegion``):
    /// records in file order, with the section of each when `isSectioned` (`section_by`).
    init(chunksOf storage: ListStorage, source: UnsafeBufferPointer<UInt8>, isSectioned: Bool, estimatedCount: Int) {
        self.init(
            storage: storage, source: source, isSectioned: false, isSecondHalf: false, estimatedCount: estimatedCount,
            countsDuplicates: false)
        if isSectioned { sectionOfRecord = [] }
    }

    /// An assembler for the second half of a linear list of `storage`, to be
    /// appended to the first half's (``append(_:)``).
    init(secondHalfOf storage: ListStorage, source: UnsafeBufferPointer<UInt8>, estimatedCount: Int) {
        self.init(storage: storage, source: source, isSectioned: false, isSecondHalf: true, estimatedCount: estimatedCount)
    }

    private init(
        storage: ListStorage, source: UnsafeBufferPointer<UInt8>, isSectioned: Bool, isSecondHalf: Bool,
        estimatedCount: Int, countsDuplicates: Bool = true
    ) {
        self.storage = storage
        self.source = source
        self.isSectioned = isSectioned
        self.isSecondHalf = isSecondHalf
        self.estimatedCount = max(estimatedCount, 16)
        self.countsDuplicates = countsDuplicates
        duplicates = DuplicateCounter(estimatedCount: countsDuplicates ? self.estimatedCount : 0)
        if !isSectioned { Self.reserve(&records, self.estimatedCount) }
    }

    /// Adds the records of `second`, the assembler of the records that
    /// follow this one's, the last of the list: one copy of plain bytes,
    /// O(records of `second`), while the other core finds the identity
    /// hashes the two halves have more than once — all that ``finish(schema:format:report:)``
    /// needs of `second`'s hashes, so they are not merged into this
    /// assembler's.
    mutating func append(_ second: consuming ListAssembler) {
        precondition(!isSectioned && !isSecondHalf && second.isSecondHalf, "appending other than a second half")
        var records: [ListRecord] = []
        swap(&records, &self.records)
        let secondRecords = second.records
        var repeatedHashes: Set<UInt64> = []
        SplitRead.both(
            { records.append(contentsOf: secondRecords) },
            { repeatedHashes = duplicates.repeatedHashes(joining: second.duplicates) })
        swap(&records, &self.records)
        self.repeatedHashes = repeatedHashes
        recordCount += second.recordCount
    }

    /// Reserves room for `count` records in `records` (backed by huge pages).
    private static func reserve(_ records: inout [ListRecord], _ count: Int) {
        records.reserveCapacity(count)
        let capacity = records.capacity
        records.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, byteCount: capacity * MemoryLayout<ListRecord>.stride)
        }
    }

    /// An estimate of the number of records in `bytes` after `start`: the
    /// number of `marks` (bytes that end or start a record) in the first
    /// 64 KiB, scaled to the whole. Too high is cheap — reserved pages that
    /// are never written cost no memory; too low only means arrays grow.
    static func estimatedCount(of marks: (UInt8, UInt8), in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let total = bytes.count - start
        let sample = min(total, 1 << 16)
        guard sample > 0 else { return 0 }
        var count = 0
        for byte in bytes[start..<start + sample] where byte == marks.0 || byte == marks.1 { count += 1 }
        return Int(Double(count + 1) * Double(total) / Double(sample) * 1.05)
    }

    /// Groups the records into sections even without `section_by` (a JSON
    /// object of arrays). Must come before the first record.
    mutating func useSections() {
        precondition(recordCount == 0, "sections must be chosen before the first record")
        isSectioned = true
        records = []
    }

    /// The section whose value has the canonical bytes `bytes`, creating it
    /// (with `makeValue`) the first time.
    mutating func section(
        forCanonical bytes: UnsafeRawBufferPointer, makeValue: () -> ListValue
    ) -> (index: Int, isNew: Bool) {
        let result = sections.index(forCanonical: bytes, makeValue: makeValue)
        if result.isNew, sectionOfRecord == nil {
            recordsBySection.append([])
            if recordsBySection.count == 1 { Self.reserve(&recordsBySection[0], estimatedCount) }
        }
        return result
    }

    /// Adds the record at `start..<end` of the file to section `section`
    /// (0 for a linear list).
    mutating func append(start: Int, end: Int, key: KeySource, content: ContentHash, section: Int) {
        let identity: ContentHash
        switch key {
        case .source(let keyStart, let keyEnd):
            identity = StableHash.hash128(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: source[keyStart..<keyEnd])))
        case .hashed(let hash):
            identity = hash
        case .bytes(let bytes):
            identity = StableHash.hash128(bytes)
        case .content:
            identity = content
        }
        assert(repeatedHashes == nil, "a record after the halves were joined")
        let record = ListRecord(start: start, end: end, identity: RecordIdentity(hash: identity), content: content)
        if sectionOfRecord != nil {
            records.append(record)
            sectionOfRecord?.append(Int32(section))
        } else if isSectioned {
            recordsBySection[section].append(record)
        } else {
            records.append(record)
        }
        if countsDuplicates { duplicates.add(identity.low) }
        recordCount += 1
    }

    /// Adds records a scanner made whole (linear lists only): one copy.
    mutating func append(ready: UnsafeBufferPointer<listsync_record>) {
        precondition(!isSectioned && sectionOfRecord == nil, "ready records in a sectioned list")
        assert(repeatedHashes == nil, "records after the halves were joined")
        ListRecord.checkCLayout()
        ready.withMemoryRebound(to: ListRecord.self) { records.append(contentsOf: $0) }
        if countsDuplicates { for record in ready { duplicates.add(record.identity_low) } }
        recordCount += ready.count
    }

    /// The sections of the chunk that ends here (empty without `section_by`), in order of first
    /// appearance in it; the next chunk starts a table of its own.
    mutating func finishChunk() -> [ChunkedRegion.Section] {
        guard sectionOfRecord != nil else { return [] }
        let chunkSections = zip(sections.canonicalValues, sections.models).map {
            ChunkedRegion.Section(canonical: $0, model: $1)
        }
        sections = SectionTable()
        return chunkSections
    }

    /// The records of a region of a file read in chunks, in file order, and the section of each
    /// in its chunk (``ChunkedRegion``): ``IncrementalListReader`` builds the list itself.
    consuming func chunkedRecords() -> (records: [ListRecord], sectionOfRecord: [Int32]) {
        precondition(!isSectioned, "the records of a sectioned list")
        return (records, sectionOfRecord ?? [])
    }

    /// Builds the list: records, sections and report.
    consuming func finish(schema: ListSchema, format: ListFormat, report: ReadReport) -> ParsedList {
        precondition(!isSecondHalf, "finishing a second half")
        var report = report
        report.recordCount = recordCount
        let recordsBySection = isSectioned ? self.recordsBySection : [records]
        let duplicates = duplicates.duplicates(in: recordsBySection, repeatedHashes: repeatedHashes)
        report.duplicateCount = duplicates.count
        report.firstDuplicateOffset = duplicates.first.map { DuplicateCounter.byteOffset(ofRecord: $0, in: recordsBySection) }
        let layout: ListLayout
        if isSectioned {
            layout = .sectioned(zip(sections.models, recordsBySection).map { ArraySection(model: $0, elements: $1) })
            report.sectionCount = sections.count
        } else {
            layout = .linear(ListRecords(records))
        }
        let list = ParsedList(format: format, schema: schema, layout: layout, report: report, storage: storage)
        list._checkInvariants()
        return list
    }
}
