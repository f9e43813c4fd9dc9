import DurableFiles
import Glibc
@testable import ListFormats
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Issue 19: ``SavedRecordsFile`` writes a version's array runs to an unnamed file of the state
/// directory and maps them — the same records, runs already mapped left as they are, the file
/// rewritten whole (one run) past the run limit or when dead records outweigh live ones — and a
/// write that fails leaves the records as they are, reported once, not retried at once.
@Suite struct SavedRecordsFileTests {
    /// `count` records one after the other, with random identities and contents.
    static func randomRecords(count: Int, from start: Int = 100, using generator: inout SplitMix) -> [ListRecord] {
        var start = start
        return (0..<count).map { _ in
            let length = Int.random(in: 1...30, using: &generator)
            defer { start += length + 1 }
            return ListRecord(
                start: start, end: start + length, identity: RecordIdentity(hash: ContentHash(low: generator.next(), high: generator.next())),
                content: ContentHash(low: generator.next(), high: 1))
        }
    }

    /// What the records are, comparable.
    static func fields(_ records: ListRecords) -> [[UInt64]] {
        records.map { [UInt64($0.byteRange.lowerBound), UInt64($0.byteRange.upperBound), $0.differenceIdentifier.hash.low, $0.contentHash.low] }
    }

    /// A version's records after `edits` one-record changes at random places of `base`, each a
    /// new one-record array between runs of the records before: what a one-row edit's read gives.
    static func edited(_ base: ListRecords, edits: Int, using generator: inout SplitMix) -> ListRecords {
        var records = base
        for _ in 0..<edits {
            let index = Int.random(in: 0..<records.count, using: &generator)
            let record = Self.randomRecords(count: 1, from: records[index].byteOffset, using: &generator)[0]
            records = records.records(in: 0..<index) + ListRecords([record]) + records.records(in: (index + 1)..<records.count)
        }
        return records
    }

    @Test func arrayRunsAreWrittenMappedAndTheSameRecords() throws {
        let scratch = try ScratchDirectory(prefix: "records")
        let file = SavedRecordsFile(directory: scratch.path)
        var generator = SplitMix(seed: 3)
        let loaded = ListRecords(Self.randomRecords(count: 5_000, using: &generator))
        let stride = MemoryLayout<ListRecord>.stride

        // The load's array: written whole, one mapped run.
        let first = try #require(file.mapped(loaded))
        #expect(first.runs.count == 1 && first.holdsMappings && !first.runs.contains { $0.storage.array != nil })
        #expect(Self.fields(first) == Self.fields(loaded))
        #expect(file.byteCount == 5_000 * stride)
        // No name in the directory leads to it.
        #expect(EndToEndTests.MappedVersions.names(in: scratch.path).filter { $0 != "." && $0 != ".." }.isEmpty)
        // Nothing to write: every run mapped.
        #expect(file.mapped(first) == nil)

        // A one-record edit: only its new record is appended; the mapped runs stay.
        let edit = Self.edited(first, edits: 1, using: &generator)
        let second = try #require(file.mapped(edit))
        #expect(Self.fields(second) == Self.fields(edit))
        #expect(second.runs.allSatisfy { $0.storage.mappedRegion != nil })
        #expect(second.runs.count == edit.runs.count)
        #expect(file.byteCount == 5_001 * stride)

        // Past the run limit: rewritten whole, as one run, to a new file.
        let many = Self.edited(second, edits: ListRecords.compactionRunLimit, using: &generator)
        let compacted = try #require(file.mapped(many))
        #expect(compacted.runs.count == 1 && compacted.holdsMappings)
        #expect(Self.fields(compacted) == Self.fields(many))
        #expect(file.byteCount == 5_000 * stride)
        // The records mapped before still read as they were (their file lives with its mappings).
        #expect(Self.fields(second) == Self.fields(edit))
        #expect(file.takeReport() == nil)
    }

    /// Dead records beyond twice the live ones (and the slack): the file is written anew.
    @Test func deadRecordsMakeTheFileWrittenAnew() throws {
        let scratch = try ScratchDirectory(prefix: "records")
        let file = SavedRecordsFile(directory: scratch.path)
        var generator = SplitMix(seed: 4)
        let stride = MemoryLayout<ListRecord>.stride
        let large = try #require(file.mapped(ListRecords(Self.randomRecords(count: 2 * SavedRecordsFile.slackRecords, using: &generator))))
        // An edit of the large list: appended.
        _ = try #require(file.mapped(Self.edited(large, edits: 1, using: &generator)))
        #expect(file.byteCount == (2 * SavedRecordsFile.slackRecords + 1) * stride)
        // A small list replaces it: the file now holds more dead records than twice the live
        // ones and the slack, so it is written anew with the live records only.
        let small = try #require(file.mapped(ListRecords(Self.randomRecords(count: 1_000, using: &generator))))
        #expect(file.byteCount == 1_000 * stride)
        #expect(small.count == 1_000 && small.runs.count == 1 && small.holdsMappings)
    }

    /// A directory the file cannot be made in (gone): the records stay as they are, the failure
    /// is reported once, and the file is not tried again before the retry interval.
    @Test func aFailedWriteLeavesTheRecordsAndIsReportedOnce() throws {
        let scratch = try ScratchDirectory(prefix: "records")
        let file = SavedRecordsFile(directory: scratch.path("missing"))
        var generator = SplitMix(seed: 5)
        let records = ListRecords(Self.randomRecords(count: 100, using: &generator))
        #expect(file.mapped(records) == nil)
        guard case .failed(let error)? = file.takeReport() else {
            Issue.record("no failure reported")
            return
        }
        #expect(error.code == ENOENT)
        #expect(file.takeReport() == nil)
        // Within the retry interval, not tried (even once the directory is there).
        try FileOperations.makeDirectory(scratch.path("missing"))
        #expect(file.mapped(records) == nil)
        #expect(file.takeReport() == nil)
        #expect(file.byteCount == 0)
    }
}
