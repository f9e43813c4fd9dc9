import DurableFiles

/// A list's records, as runs laid end to end that may share their storage with another version
/// of the same list — what ``DurableFiles/FileBytes`` is for a file's bytes.
///
/// Issue 19: a one-row edit of a large list should not cost a second records array (40 bytes a
/// row). A version read after a small change can keep the records of the chunks it has in common
/// with the version before it as runs of that version's storage, and hold only the changed
/// middle's records in new memory. A run's records are its storage's moved by the run's
/// ``Run/shift`` (bytes inserted or removed before them), so the kept end after a change of
/// length is not rewritten. Records read whole are one run, and cost what an array costs.
///
/// The value is immutable: it holds its storage, arrays, which nothing writes while any run of
/// them is held (`Array`'s copy on write guarantees it for every writer), or read-only mappings
/// of a file the daemon wrote them to, which nothing writes while mapped (``DurableFiles/MappedFileRegion``).
///
/// A `RandomAccessCollection` of ``ListRecord`` with `Int` indices from 0: iteration walks the
/// runs in order (O(1) a record), a subscript finds its run in O(log runs).
public struct ListRecords: Sendable {
    /// One stretch of the records: a range of a storage — an array, or a read-only mapping of
    /// a file that holds them (issue 19: a saved version's records served from the watch's
    /// records file) — each record `shift` bytes further in the file than in the storage.
    public struct Run: Sendable {
        /// What the records are a range of (shared, never written while held).
        public let storage: ArrayOrMapping<ListRecord>
        /// Which of its records.
        public let range: Range<Int>
        /// What is added to each record's byte offset: the bytes inserted (or, negative,
        /// removed) before the run since its storage was read.
        public let shift: Int

        public init(storage: ArrayOrMapping<ListRecord>, range: Range<Int>, shift: Int = 0) {
            precondition(range.lowerBound >= 0 && range.upperBound <= storage.count, "a run beyond its storage")
            self.storage = storage
            self.range = range
            self.shift = shift
        }

        /// A range of `storage`, an array.
        public init(storage: [ListRecord], range: Range<Int>, shift: Int = 0) {
            self.init(storage: .array(storage), range: range, shift: shift)
        }

        /// The run's record at `index` of its storage, moved by the shift.
        @inline(__always)
        func record(atStorageIndex index: Int) -> ListRecord {
            shift == 0 ? storage[index] : storage[index].moved(by: shift)
        }

        /// The run's records as they lie in their storage (unshifted), in place.
        @inline(__always)
        public func withUnsafeStorageRecords<R, E: Error>(_ body: (UnsafeBufferPointer<ListRecord>) throws(E) -> R) throws(E) -> R {
            try storage.withUnsafeBufferPointer { buffer throws(E) in try body(UnsafeBufferPointer(rebasing: buffer[range])) }
        }
    }

    /// The runs, none of them empty, in order.
    public let runs: [Run]

    /// Where each run starts among the records.
    private let offsets: PieceOffsets

    /// How many records there are.
    public var count: Int { offsets.count }

    /// No records.
    public init() {
        self.init(runs: [])
    }

    /// `records` as one run: no copy.
    public init(_ records: [ListRecord]) {
        self.init(runs: [Run(storage: records, range: 0..<records.count)])
    }

    /// The records of `runs` one after the other; empty runs are left out.
    public init(runs: some Sequence<Run>) {
        let kept = runs.filter { !$0.range.isEmpty }
        self.runs = kept
        self.offsets = PieceOffsets(lengths: kept.lazy.map(\.range.count))
    }

    /// Whether the records are one stretch of one storage, unshifted (one run, or none): then
    /// ``withContiguousRecords(in:_:)`` never copies.
    public var isContiguous: Bool {
        runs.isEmpty || (runs.count == 1 && runs[0].shift == 0)
    }

    /// The records as one array: the storage itself when it is one unshifted run covering a
    /// whole array (O(1)), a copy otherwise (O(*n*)).
    public var array: [ListRecord] {
        if runs.count == 1, runs[0].shift == 0, runs[0].range == 0..<runs[0].storage.count, let whole = runs[0].storage.array {
            return whole
        }
        var array: [ListRecord] = []
        array.reserveCapacity(count)
        forEachStretch { records, shift in
            if shift == 0 {
                array += records
            } else {
                for record in records { array.append(record.moved(by: shift)) }
            }
            return true
        }
        return array
    }

    /// The records of every storage the runs hold, each counted once: what holding these
    /// records keeps alive, in records (at least ``count``; more when a run keeps a larger
    /// array or mapping alive). Counted by the records the arrays hold, not by their reservation: a first
    /// read reserves its array for an estimate of the records, up to twice as many, whose pages
    /// past the records are never written and hold no memory.
    public var storageRecordCount: Int {
        var seen = Set<UInt>()
        var total = 0
        for run in runs {
            if seen.insert(run.storageAddress).inserted {
                total += run.storage.count
            }
        }
        return total
    }

    /// The index of the run that holds record `index` (`0 ..< count`). O(log runs).
    public func runIndex(containing index: Int) -> Int {
        offsets.pieceIndex(containing: index)
    }

    /// Where run `index` starts among the records.
    public func start(ofRun index: Int) -> Int {
        offsets.starts[index]
    }

    /// The records in `range`, sharing this value's storage, each `shift` bytes further in the
    /// file. O(runs).
    public func records(in range: Range<Int>, shiftedBy shift: Int = 0) -> ListRecords {
        ListRecords(runs: offsets.pieces(overlapping: range).map { index, part in
            let run = runs[index]
            return Run(
                storage: run.storage, range: (run.range.lowerBound + part.lowerBound)..<(run.range.lowerBound + part.upperBound),
                shift: run.shift + shift)
        })
    }

    /// These records followed by `other`'s, sharing both values' storage.
    public static func + (lhs: ListRecords, rhs: ListRecords) -> ListRecords {
        ListRecords(runs: lhs.runs + rhs.runs)
    }

    /// Calls `body` with the records in `range` as one stretch of memory: in place when one
    /// unshifted run holds them all, else copied (with their shifts) into a temporary array.
    public func withContiguousRecords<R, E: Error>(
        in range: Range<Int>, _ body: (UnsafeBufferPointer<ListRecord>) throws(E) -> R
    ) throws(E) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range \(range) out of 0..<\(count)")
        guard !range.isEmpty else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let index = runIndex(containing: range.lowerBound)
        let run = runs[index]
        if run.shift == 0, range.upperBound <= offsets.starts[index] + run.range.count {
            let lower = run.range.lowerBound + range.lowerBound - offsets.starts[index]
            return try run.storage.withUnsafeBufferPointer { buffer throws(E) in
                try body(UnsafeBufferPointer(rebasing: buffer[lower..<(lower + range.count)]))
            }
        }
        let copy = records(in: range).array
        return try copy.withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
    }
}

extension ListRecords.Run {
    /// The address of the storage's first record: the storage's identity.
    public var storageAddress: UInt {
        storage.address
    }
}

extension ListRecords: RandomAccessCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>
    public typealias SubSequence = Slice<ListRecords>

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var isEmpty: Bool { count == 0 }

    /// The record at `index`. O(log runs).
    public subscript(index: Int) -> ListRecord {
        let runIndex = runIndex(containing: index)
        let run = runs[runIndex]
        return run.record(atStorageIndex: run.range.lowerBound + index - offsets.starts[runIndex])
    }

    /// Walks the runs in order: O(1) a record. A whole pass over records held as mappings (a
    /// snapshot, a digest, a copy) lets their pages go a stretch at a time as it goes
    /// (``mappedStretchCount`` records), so that it keeps only a stretch of them resident.
    public struct Iterator: IteratorProtocol {
        let runs: [Run]
        var run = 0
        var index = 0
        var end = 0
        var current: Run?
        /// Where the current run's storage is mapped, and up to where its pages were let go.
        var isMapped = false
        var releasedUpTo = 0

        init(runs: [Run]) {
            self.runs = runs
        }

        public mutating func next() -> ListRecord? {
            if isMapped, index - releasedUpTo >= ListRecords.mappedStretchCount || index == end {
                current?.storage.releasePages(in: releasedUpTo..<index)
                releasedUpTo = index
            }
            if index == end {
                guard run < runs.count else { return nil }
                let next = runs[run]
                run += 1
                current = next
                index = next.range.lowerBound
                end = next.range.upperBound
                isMapped = next.storage.mappedRegion != nil
                releasedUpTo = index
            }
            guard let current else { return nil }
            defer { index += 1 }
            return current.record(atStorageIndex: index)
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(runs: runs)
    }

    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<ListRecord>) throws -> R) rethrows -> R? {
        guard isContiguous else { return nil }
        guard let run = runs.first else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try run.withUnsafeStorageRecords { try body($0) }
    }
}

extension ListRecords: CustomStringConvertible {
    public var description: String {
        "ListRecords(\(count) records in \(runs.count) runs)"
    }
}
