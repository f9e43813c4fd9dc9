import DurableFiles
import Glibc
@testable import ListFormats
import ListSyncTestSupport
import Testing

/// Issue 19: ``ListRecords`` whose runs are read-only mappings of a file holding the records
/// (``DurableFiles/ArrayOrMapping/mapped(_:)``, the daemon's records file) behave as the array of
/// the same records — mixed with array runs, shifted, sliced, joined, compacted — and a whole
/// pass over them lets their pages go as it goes.
@Suite struct ListRecordsMappedRunsTests {
    typealias Fields = ListRecordsTests.Fields

    /// A file holding `records` after `leading` filler records, mapped: the filler's place in
    /// the file puts the records at an offset that is no page's start.
    static func mapped(_ records: [ListRecord], leading: Int, in scratch: ScratchDirectory, name: String) throws -> ArrayOrMapping<ListRecord> {
        let filler = ListRecord(start: 7_000, end: 7_001, identity: RecordIdentity(hash: ContentHash(low: 77, high: 7)), content: ContentHash(low: 7, high: 7))
        let stored = Array(repeating: filler, count: leading) + records
        let bytes = stored.withUnsafeBytes { Array($0) }
        try FileContent.write(bytes: bytes, to: scratch.path(name))
        let stride = MemoryLayout<ListRecord>.stride
        let region = try MappedFileRegion(path: scratch.path(name), offset: leading * stride, count: records.count * stride)
        return try #require(ArrayOrMapping<ListRecord>(mapping: region))
    }

    /// `records` in runs of random lengths, each a range of a storage of its own with records
    /// around it, stored a random number of bytes earlier than they are (the run's shift puts them
    /// back) — an array or, at random, a mapping of a file that holds that storage.
    static func randomMixedRuns(
        _ records: [ListRecord], in scratch: ScratchDirectory, using generator: inout some RandomNumberGenerator
    ) throws -> ListRecords {
        var runs: [ListRecords.Run] = []
        var start = 0
        let filler = ListRecord(start: 5_000, end: 5_001, identity: RecordIdentity(hash: ContentHash(low: 999, high: 9)), content: ContentHash(low: 9, high: 9))
        while start < records.count {
            let end = Int.random(in: (start + 1)...min(records.count, start + 12), using: &generator)
            let shift = Bool.random(using: &generator) ? 0 : Int.random(in: -100...100, using: &generator)
            let storage = [filler, filler] + records[start..<end].map { $0.moved(by: -shift) } + [filler]
            let range = 2..<(2 + end - start)
            if Bool.random(using: &generator) {
                let file = try Self.mapped(storage, leading: Int.random(in: 0...200, using: &generator), in: scratch, name: "run\(runs.count)")
                runs.append(ListRecords.Run(storage: file, range: range, shift: shift))
            } else {
                runs.append(ListRecords.Run(storage: storage, range: range, shift: shift))
            }
            start = end
        }
        return ListRecords(runs: runs)
    }

    /// Random mixed runs of random records: count, array, iteration, indexing, slices, joins,
    /// stretches, contiguous access and compaction are the array's.
    @Test func mixedRunsBehaveAsTheArrayOfTheirRecords() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<150 {
            let scratch = try ScratchDirectory(prefix: "mappedruns")
            let records = ListRecordsTests.randomRecords(count: Int.random(in: 0...120, using: &generator), using: &generator)
            let expected = ListRecordsTests.fields(records)
            let runs = try Self.randomMixedRuns(records, in: scratch, using: &generator)
            #expect(runs.count == records.count, "round \(round)")
            #expect(ListRecordsTests.fields(runs) == expected, "round \(round)")
            #expect(ListRecordsTests.fields(runs.array) == expected)
            #expect(ListRecordsTests.fields(runs.indices.map { runs[$0] }) == expected)
            #expect(ListRecordsTests.fields(runs.reversed()) == expected.reversed())
            var stretched: [ListRecord] = []
            runs.forEachStretch { stretch, shift in
                stretched += stretch.map { $0.moved(by: shift) }
                return true
            }
            #expect(ListRecordsTests.fields(stretched) == expected)
            let lower = Int.random(in: 0...records.count, using: &generator)
            let upper = Int.random(in: lower...records.count, using: &generator)
            let shift = Int.random(in: -3...3, using: &generator) + 4
            #expect(ListRecordsTests.fields(runs.records(in: lower..<upper)) == Array(expected[lower..<upper]))
            #expect(ListRecordsTests.fields(runs[lower..<upper]) == Array(expected[lower..<upper]))
            #expect(
                ListRecordsTests.fields(runs.records(in: lower..<upper, shiftedBy: shift))
                    == ListRecordsTests.fields(records[lower..<upper].map { $0.moved(by: shift) }))
            runs.withContiguousRecords(in: lower..<upper) { #expect(ListRecordsTests.fields($0) == Array(expected[lower..<upper])) }
            let cut = Int.random(in: 0...records.count, using: &generator)
            #expect(ListRecordsTests.fields(runs.records(in: 0..<cut) + runs.records(in: cut..<records.count)) == expected)
            #expect(ListRecordsTests.fields(runs.compacted(slack: 0)) == expected)
            #expect(ListRecordsTests.fields(ListRecords(runs.array).compacted(slack: 0)) == expected)
        }
    }

    /// One mapped run: contiguous in place (no copy), its storage counted as its records, and
    /// not compacted for the storage it keeps (a mapping costs no memory but what is read);
    /// compacted for too many runs only beyond four times the limit.
    @Test func mappedStorageIsUsedInPlaceAndNotCompactedForItsSize() throws {
        let scratch = try ScratchDirectory(prefix: "mappedruns")
        var generator = SplitMix(seed: 5)
        let records = ListRecordsTests.randomRecords(count: 10_000, using: &generator)
        let storage = try Self.mapped(records, leading: 3, in: scratch, name: "records")
        let whole = ListRecords(runs: [ListRecords.Run(storage: storage, range: 0..<records.count)])
        #expect(whole.isContiguous && whole.holdsMappings)
        whole.withContiguousRecords(in: 10..<20) { buffer in
            #expect(buffer.baseAddress == storage.mappedRegion.map { UnsafeRawPointer($0.buffer.baseAddress!).assumingMemoryBound(to: ListRecord.self) + 10 })
        }
        // The ends of a large mapping around a small array: kept as runs.
        let middle = ListRecordsTests.randomRecords(count: 3, using: &generator).map { $0.moved(by: records[500].byteOffset) }
        let sparse = whole.records(in: 0..<500) + ListRecords(middle) + whole.records(in: 9_500..<10_000)
        #expect(!sparse.needsCompaction(slack: 0))
        #expect(ListRecordsTests.fields(sparse.compacted(slack: 0)) == ListRecordsTests.fields(Array(records[0..<500]) + middle + records[9_500...]))
        let many = ListRecords(runs: (0..<(4 * ListRecords.compactionRunLimit + 1)).map {
            ListRecords.Run(storage: storage, range: ($0 * 10)..<($0 * 10 + 10))
        })
        #expect(!ListRecords(runs: many.runs.prefix(ListRecords.compactionRunLimit + 1)).needsCompaction(slack: 0))
        #expect(many.needsCompaction(slack: 0) && many.compacted(slack: 0).runs.count == 1)
    }

    /// A whole pass over records mapped from a file larger than a stretch — iteration, a copy,
    /// the stretches — leaves at most about a stretch of the mapping resident.
    @Test func aWholePassLetsTheMappedPagesGo() throws {
        let scratch = try ScratchDirectory(prefix: "mappedruns")
        var generator = SplitMix(seed: 9)
        let count = 3 * ListRecords.mappedStretchCount + 1_234
        let records = ListRecordsTests.randomRecords(count: count, using: &generator)
        let storage = try Self.mapped(records, leading: 1, in: scratch, name: "records")
        let region = try #require(storage.mappedRegion)
        let mapped = ListRecords(runs: [ListRecords.Run(storage: storage, range: 0..<count, shift: 5)])
        let byteSize = count * MemoryLayout<ListRecord>.stride
        let stretchBytes = ListRecords.mappedStretchCount * MemoryLayout<ListRecord>.stride
        region.releasePages()
        var total = 0
        for record in mapped { total &+= record.byteOffset }
        #expect(total == records.reduce(0) { $0 &+ $1.byteOffset + 5 })
        #expect(try region.residentBytes() <= 2 * 4096, "after iterating")
        #expect(mapped.array.count == count)
        #expect(try region.residentBytes() <= 2 * 4096, "after a copy")
        var seen = 0
        mapped.forEachStretch { stretch, _ in
            seen += stretch.count
            return true
        }
        #expect(seen == count)
        #expect(try region.residentBytes() <= 2 * 4096, "after the stretches")
        // Read by index (no pass), the pages stay: what the release above is measured against.
        for index in Swift.stride(from: 0, to: count, by: 50) { total &+= mapped[index].byteOffset }
        #expect(try region.residentBytes() >= byteSize - stretchBytes)
        // Released by index (a snapshot's chunks, read by index, let go of what they encoded):
        // the pages of the records released go, those of the others stay, array runs are left.
        let half = count / 2
        mapped.releaseMappedPages(in: 0..<half)
        let resident = try region.residentBytes()
        #expect(resident <= byteSize - half * MemoryLayout<ListRecord>.stride + 2 * 4096, "after releasing the first half")
        #expect(resident >= byteSize - half * MemoryLayout<ListRecord>.stride - 2 * 4096 - stretchBytes, "after releasing the first half")
        let mixed = ListRecords(Array(records.prefix(10))) + mapped.records(in: 0..<count)
        mixed.releaseMappedPages(in: 0..<(count + 10))
        #expect(try region.residentBytes() <= 2 * 4096, "after releasing all of it through an array run and a slice")
        #expect(ListRecordsTests.fields(mixed.records(in: 10..<(count + 10))) == ListRecordsTests.fields(records.map { $0.moved(by: 5) }))
        // Two runs of the mapping around records an edit replaced, the replaced ones read too
        // (as a diff reads them): released whole, nothing of the mapping stays, the gap included.
        let gap = (count / 3)..<(count / 3 + 3 * ListRecords.mappedStretchCount / 4)
        let edited = mapped.records(in: 0..<gap.lowerBound) + ListRecords(Array(records[gap])) + mapped.records(in: gap.upperBound..<count)
        for index in Swift.stride(from: 0, to: count, by: 50) { total &+= edited[index].byteOffset &+ mapped[index].byteOffset }
        #expect(try region.residentBytes() >= byteSize - stretchBytes)
        edited.releaseMappedPages(in: 0..<count)
        // The replaced records, read again after a release of the runs' ranges (which may have
        // let them go with a large folio's mapping, or not): resident until the whole release.
        for index in Swift.stride(from: gap.lowerBound, to: gap.upperBound, by: 50) { total &+= mapped[index].byteOffset }
        #expect(try region.residentBytes() >= (gap.count - 100) * MemoryLayout<ListRecord>.stride, "the replaced records read again")
        edited.releaseAllMappedPages()
        #expect(try region.residentBytes() == 0, "after releasing the mapping whole")
        #expect(ListRecordsTests.fields(edited) == ListRecordsTests.fields(records.map { $0.moved(by: 5) }.enumerated().map { gap.contains($0.offset) ? records[$0.offset] : $0.element }))
    }
}
