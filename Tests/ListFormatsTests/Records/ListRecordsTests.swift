@testable import ListFormats
import Testing

/// ``ListRecords``: records in runs behave as the array of the same records, shifts applied, and
/// share their storage.
@Suite struct ListRecordsTests {
    /// What a record is made of, comparable.
    struct Fields: Equatable, CustomStringConvertible {
        let range: Range<Int>
        let identity: ContentHash
        let content: ContentHash

        init(_ record: ListRecord) {
            self.range = record.byteRange
            self.identity = record.differenceIdentifier.hash
            self.content = record.contentHash
        }

        var description: String { "\(range)" }
    }

    static func fields(_ records: some Sequence<ListRecord>) -> [Fields] {
        records.map(Fields.init)
    }

    /// `count` records one after the other from byte 200, with identities and contents drawn
    /// from a small pool.
    static func randomRecords(count: Int, using generator: inout some RandomNumberGenerator) -> [ListRecord] {
        var start = 200
        return (0..<count).map { _ in
            let length = Int.random(in: 1...30, using: &generator)
            defer { start += length + 1 }
            let identity = ContentHash(low: UInt64.random(in: 0...50, using: &generator), high: 0)
            return ListRecord(
                start: start, end: start + length, identity: RecordIdentity(hash: identity),
                content: ContentHash(low: UInt64.random(in: 0...3, using: &generator), high: 1))
        }
    }

    /// `records` in runs of random lengths, each in a storage of its own with records around it
    /// that are not part of it, stored a random number of bytes earlier than they are (the run's
    /// shift puts them back).
    static func randomRuns(_ records: [ListRecord], using generator: inout some RandomNumberGenerator) -> ListRecords {
        var runs: [ListRecords.Run] = []
        var start = 0
        while start < records.count {
            let end = Int.random(in: start...min(records.count, start + 12), using: &generator)
            let shift = Bool.random(using: &generator) ? 0 : Int.random(in: 0...100, using: &generator)
            let filler = ListRecord(start: 5_000, end: 5_001, identity: RecordIdentity(hash: ContentHash(low: 999, high: 9)), content: ContentHash(low: 9, high: 9))
            let storage = [filler, filler] + records[start..<end].map { $0.moved(by: -shift) } + [filler]
            runs.append(ListRecords.Run(storage: storage, range: 2..<(2 + end - start), shift: shift))
            start = end
        }
        return ListRecords(runs: runs)
    }

    /// Random runs of random records: count, array, iteration, indexing, slices and contiguous
    /// access are the array's, whatever the runs and their shifts.
    @Test func runsBehaveAsTheArrayOfTheirRecords() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            let records = Self.randomRecords(count: Int.random(in: 0...120, using: &generator), using: &generator)
            let expected = Self.fields(records)
            let runs = Self.randomRuns(records, using: &generator)
            #expect(runs.count == records.count)
            #expect(Self.fields(runs) == expected)
            #expect(Self.fields(runs.array) == expected)
            #expect(Self.fields(ContiguousArray(runs)) == expected)
            #expect(Self.fields(runs.indices.map { runs[$0] }) == expected)
            #expect(Self.fields(runs.reversed()) == expected.reversed())
            let lower = Int.random(in: 0...records.count, using: &generator)
            let upper = Int.random(in: lower...records.count, using: &generator)
            let shift = Int.random(in: -3...3, using: &generator) + 4
            #expect(Self.fields(runs.records(in: lower..<upper)) == Array(expected[lower..<upper]))
            #expect(Self.fields(runs[lower..<upper]) == Array(expected[lower..<upper]))
            #expect(Self.fields(runs.records(in: lower..<upper, shiftedBy: shift)) == Self.fields(records[lower..<upper].map { $0.moved(by: shift) }))
            runs.withContiguousRecords(in: lower..<upper) { #expect(Self.fields($0) == Array(expected[lower..<upper])) }
            // Joined again from its slices: the same records.
            let cut = Int.random(in: 0...records.count, using: &generator)
            #expect(Self.fields(runs.records(in: 0..<cut) + runs.records(in: cut..<records.count)) == expected)
            #expect(Self.fields(runs.compacted(slack: 0)) == expected)
        }
    }

    /// A slice and a concatenation hold the same storage, not a copy of it; a version that keeps
    /// the ends of a large one and a new middle keeps the large storage alive once, and is
    /// compacted into one array when that storage is mostly not its own.
    @Test func slicesShareTheirStorage() {
        var generator = SystemRandomNumberGenerator()
        let storage = Self.randomRecords(count: 10_000, using: &generator)
        let whole = ListRecords(storage)
        let middle = Self.randomRecords(count: 3, using: &generator).map { $0.moved(by: storage[100].byteOffset) }
        let joined = whole.records(in: 0..<100) + ListRecords(middle) + whole.records(in: 200..<10_000, shiftedBy: 7)
        #expect(joined.count == 9_903)
        #expect(joined.runs.count == 3)
        #expect(joined.runs[0].storageAddress == storage.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) })
        #expect(joined.runs[2].shift == 7)
        #expect(joined[9_902].byteOffset == storage[9_999].byteOffset + 7)
        // The large array is counted once, the small one beside it.
        #expect(joined.storageRecordCount >= 10_003 && joined.storageRecordCount < 10_100)
        #expect(whole.array.withUnsafeBufferPointer { $0.baseAddress } == storage.withUnsafeBufferPointer { $0.baseAddress })
        #expect(!joined.isContiguous && whole.isContiguous)
        #expect(!joined.needsCompaction(slack: 0))
        joined.withContiguousRecords(in: 5..<90) { buffer in
            #expect(buffer.baseAddress == storage.withUnsafeBufferPointer { $0.baseAddress! + 5 })
        }

        // A version that keeps a tenth of the storage alive for its records: compacted.
        let sparse = whole.records(in: 0..<500) + ListRecords(middle) + whole.records(in: 9_500..<10_000)
        #expect(sparse.needsCompaction(slack: 0) && !sparse.needsCompaction(slack: 10_000))
        let compacted = sparse.compacted(slack: 0)
        #expect(compacted.runs.count == 1 && compacted.storageRecordCount < 1_100)
        #expect(Self.fields(compacted) == Self.fields(sparse))
        // So is one of too many runs.
        let many = ListRecords(runs: (0..<(ListRecords.compactionRunLimit + 1)).map {
            ListRecords.Run(storage: storage, range: ($0 * 10)..<($0 * 10 + 10))
        })
        #expect(many.needsCompaction(slack: 1_000_000) && many.compacted(slack: 1_000_000).runs.count == 1)
    }
}
