import ListDiff

/// Collects the records a reader finds — identity, section, content — and
/// turns them into a ``ParsedList`` at the end.
///
/// Shared by the CSV and JSON readers, so identity, sections and duplicate
/// counting (``DuplicateCounter``) work the same for every format. Records
/// go straight into their section's array; the arrays are reserved from an
/// estimate of the record count so that they rarely grow (reserved pages that
/// are never written cost no memory).
struct ListAssembler {
    private let storage: ListStorage
    private let source: UnsafeRawBufferPointer
    private var isSectioned: Bool
    private var recordsBySection: [[ListRecord]]
    private var recordCount = 0
    private var sections = SectionTable()
    private let estimatedCount: Int

    /// Where the key of the next record comes from.
    enum KeySource {
        /// A slice of the file: already canonical.
        case source(start: Int, end: Int)
        /// Canonical bytes the reader built; copied into the arena.
        case bytes(UnsafeRawBufferPointer)
        /// No key: the identity is the content hash.
        case content
    }

    /// Creates an assembler for records of `storage`, whose bytes `source`
    /// points to for the duration of the read; `estimatedCount` sizes the
    /// record arrays.
    init(storage: ListStorage, source: UnsafeBufferPointer<UInt8>, isSectioned: Bool, estimatedCount: Int) {
        self.storage = storage
        self.source = UnsafeRawBufferPointer(source)
        self.isSectioned = isSectioned
        self.estimatedCount = max(estimatedCount, 16)
        recordsBySection = []
        if !isSectioned {
            recordsBySection.append([])
            recordsBySection[0].reserveCapacity(self.estimatedCount)
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
        recordsBySection = []
    }

    /// The section whose value has the canonical bytes `bytes`, creating it
    /// (with `makeValue`) the first time.
    mutating func section(
        forCanonical bytes: UnsafeRawBufferPointer, makeValue: () -> ListValue
    ) -> (index: Int, isNew: Bool) {
        let result = sections.index(forCanonical: bytes, makeValue: makeValue)
        if result.isNew {
            recordsBySection.append([])
            if recordsBySection.count == 1 { recordsBySection[0].reserveCapacity(estimatedCount) }
        }
        return result
    }

    /// Adds the record at `start..<end` of the file to section `section`
    /// (0 for a linear list).
    mutating func append(start: Int, end: Int, key: KeySource, content: ContentHash, section: Int) {
        let reference: KeyReference
        let keyHash: UInt64
        switch key {
        case .source(let keyStart, let keyEnd) where keyEnd - keyStart <= KeyReference.maximumCount:
            reference = .source(offset: keyStart, count: keyEnd - keyStart)
            keyHash = StableHash.hash64(UnsafeRawBufferPointer(rebasing: source[keyStart..<keyEnd]))
        case .source(let keyStart, let keyEnd):
            (reference, keyHash) = Self.hashedKey(UnsafeRawBufferPointer(rebasing: source[keyStart..<keyEnd]))
        case .bytes(let bytes) where bytes.count <= KeyReference.maximumCount:
            reference = .arena(offset: storage.arena.append(bytes), count: bytes.count)
            keyHash = StableHash.hash64(bytes)
        case .bytes(let bytes):
            (reference, keyHash) = Self.hashedKey(bytes)
        case .content:
            reference = .hashed(high: content.high)
            keyHash = content.low
        }
        let slot = RecordSlot(start: start, length: end - start, key: reference, keyHash: keyHash, content: content)
        recordsBySection[section].append(ListRecord(storage: storage, slot: slot))
        recordCount += 1
    }

    private static func hashedKey(_ bytes: UnsafeRawBufferPointer) -> (KeyReference, UInt64) {
        let hash = StableHash.hash128(bytes)
        return (.hashed(high: hash.high), hash.low)
    }

    /// Builds the list: records, sections and report.
    mutating func finish(schema: ListSchema, format: ListFormat, report: ReadReport) -> ParsedList {
        storage.arena.seal()
        var report = report
        report.recordCount = recordCount
        // Record numbers run through the sections in order.
        var starts = [0]
        var hashes: [UInt64] = []
        hashes.reserveCapacity(recordCount)
        for records in recordsBySection {
            starts.append(starts[starts.count - 1] + records.count)
            // Through a buffer, so that reading a hash does not retain the record's storage.
            records.withUnsafeBufferPointer { records in
                for index in records.indices { hashes.append(records[index].slot.keyHash) }
            }
        }
        let sectionStarts = starts
        let recordsBySection = self.recordsBySection
        func locate(_ number: Int) -> (section: Int, index: Int) {
            var low = 0
            var high = recordsBySection.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if sectionStarts[middle] <= number { low = middle } else { high = middle - 1 }
            }
            return (low, number - sectionStarts[low])
        }
        let duplicates = DuplicateCounter(
            hashes: hashes,
            isEqual: { lhs, rhs in
                let (lhsSection, lhsIndex) = locate(lhs)
                let (rhsSection, rhsIndex) = locate(rhs)
                return recordsBySection[lhsSection][lhsIndex].differenceIdentifier
                    == recordsBySection[rhsSection][rhsIndex].differenceIdentifier
            })
        report.duplicateCount = duplicates.duplicateCount
        report.firstDuplicateOffset = duplicates.firstDuplicate.map { number in
            let (section, index) = locate(number)
            return recordsBySection[section][index].byteOffset
        }
        let layout: ListLayout
        if isSectioned {
            layout = .sectioned(zip(sections.models, recordsBySection).map { ArraySection(model: $0, elements: $1) })
            report.sectionCount = sections.count
        } else {
            layout = .linear(recordsBySection.first ?? [])
        }
        let list = ParsedList(format: format, schema: schema, layout: layout, report: report, storage: storage)
        list._checkInvariants()
        return list
    }
}
