import DurableFiles
/// Counts records whose identity equals an earlier record's.
///
/// While a file is read, the low 64 bits of each record's identity hash go into one of
/// 256 runs, by its top 8 bits (256 write streams, which the cache absorbs).
/// At the end each run is gone through in the cache: a bitmap of a few
/// kilobytes, indexed by other bits of the hash, finds the few hashes that
/// might occur twice (those whose bit is hit twice) without a branch that
/// the processor could mispredict, and only those go through a small
/// open-addressing table. O(*n*) with sequential memory traffic and 8 bytes
/// per record, where a single table over a million records would miss the
/// cache on every insert. Hashes that occur more than once are then checked
/// record by record, comparing identities, in one more pass — only when
/// there are any.
struct DuplicateCounter: ~Copyable {
    private static let runBits = 8
    private static let runCount = 1 << runBits
    /// Fewer hashes than this are gone through on one thread.
    private static let minimumSplitCount = 1 << 18

    /// Run *r* is `hashes[r * runCapacity ..< r * runCapacity + runCounts[r]]`.
    private var hashes: UnsafeMutablePointer<UInt64>
    private var runCapacity: Int
    private let runCounts: UnsafeMutablePointer<Int>

    /// A counter sized for about `estimatedCount` records (it grows past that).
    init(estimatedCount: Int) {
        runCapacity = max(estimatedCount / Self.runCount * 5 / 4, 16)
        hashes = .allocate(capacity: runCapacity * Self.runCount)
        HugePages.advise(hashes, byteCount: runCapacity * Self.runCount * 8)
        runCounts = .allocate(capacity: Self.runCount)
        runCounts.initialize(repeating: 0, count: Self.runCount)
    }

    deinit {
        hashes.deallocate()
        runCounts.deallocate()
    }

    /// Takes note of the next record's identity hash.
    @inline(__always)
    mutating func add(_ hash: UInt64) {
        let run = Int(truncatingIfNeeded: hash >> UInt64(64 - Self.runBits))
        let count = runCounts[run]
        if count == runCapacity { grow() }
        hashes[run &* runCapacity &+ count] = hash
        runCounts[run] = count &+ 1
    }

    private mutating func grow() {
        let capacity = runCapacity * 2
        let larger = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity * Self.runCount)
        for run in 0..<Self.runCount {
            (larger + run * capacity).moveInitialize(from: hashes + run * runCapacity, count: runCounts[run])
        }
        hashes.deallocate()
        hashes = larger
        runCapacity = capacity
    }

    /// The hashes of run `run`.
    private func run(_ run: Int) -> UnsafeBufferPointer<UInt64> {
        UnsafeBufferPointer(start: hashes + run * runCapacity, count: runCounts[run])
    }

    /// The number of records of `sections` (which are the records whose
    /// hashes were added, in order) whose identity appeared before, and the
    /// number of the first of them (numbered through the sections in order).
    /// `repeatedHashes`, when given, are the hashes added more than once
    /// (``repeatedHashes(joining:)``).
    func duplicates(in sections: [[ListRecord]], repeatedHashes: Set<UInt64>? = nil) -> (count: Int, first: Int?) {
        let repeatedHashes = repeatedHashes ?? self.repeatedHashes()
        guard !repeatedHashes.isEmpty else { return (0, nil) }
        // The records with those hashes, in file order; each is a duplicate
        // when an earlier one has the same identity.
        var earlier: [UInt64: [RecordIdentity]] = [:]
        var count = 0
        var first: Int?
        var number = 0
        for records in sections {
            for record in records {
                defer { number += 1 }
                let hash = record.differenceIdentifier.hash.low
                guard repeatedHashes.contains(hash) else { continue }
                let identity = record.differenceIdentifier
                if earlier[hash, default: []].contains(identity) {
                    count += 1
                    first = first ?? number
                } else {
                    earlier[hash, default: []].append(identity)
                }
            }
        }
        return (count, first)
    }

    /// The byte offset of record `number` of `sections`, numbered through the sections in order
    /// (as ``duplicates(in:repeatedHashes:)`` numbers the first duplicate).
    static func byteOffset(ofRecord number: Int, in sections: [[ListRecord]]) -> Int {
        var number = number
        for records in sections {
            if number < records.count { return records[number].byteOffset }
            number -= records.count
        }
        return 0
    }

    /// The hashes added more than once; the runs are gone through in two
    /// halves at once when there are enough of them (``SplitRead``).
    private func repeatedHashes() -> Set<UInt64> {
        let total = (0..<Self.runCount).reduce(0) { $0 + runCounts[$1] }
        guard total >= Self.minimumSplitCount, SplitRead.hasSecondCore else {
            var search = RepeatSearch()
            for run in 0..<Self.runCount { search.add(self.run(run)) }
            return search.repeated
        }
        let middle = Self.runCount / 2
        var first = RepeatSearch()
        var second = RepeatSearch()
        SplitRead.both(
            { for run in 0..<middle { first.add(self.run(run)) } },
            { for run in middle..<Self.runCount { second.add(self.run(run)) } })
        return first.repeated.union(second.repeated)
    }

    /// The hashes added more than once to this counter and `next` (that of
    /// the records after this one's) together, on this thread.
    func repeatedHashes(joining next: borrowing DuplicateCounter) -> Set<UInt64> {
        var search = RepeatSearch()
        for run in 0..<Self.runCount { search.add(self.run(run), next.run(run)) }
        return search.repeated
    }
}
