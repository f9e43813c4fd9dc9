/// Counts records whose identity equals an earlier record's.
///
/// While a file is read, the low 64 bits of each record's identity hash go into one of
/// 256 runs, by its top 8 bits (256 write streams, which the cache absorbs).
/// At the end each run goes through a small open-addressing table that stays
/// in the cache: O(*n*) with sequential memory traffic and 8 bytes per
/// record, where a single table over a million records would miss the cache
/// on every insert. Hashes that occur more than once are then checked record
/// by record, comparing identities, in one more pass — only when there are
/// any.
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

    /// Takes note of the hashes `other` has: one copy per run.
    mutating func append(contentsOf other: borrowing DuplicateCounter) {
        for run in 0..<Self.runCount {
            let added = other.runCounts[run]
            while runCounts[run] + added > runCapacity { grow() }
            (hashes + run * runCapacity + runCounts[run]).initialize(from: other.hashes + run * other.runCapacity, count: added)
            runCounts[run] += added
        }
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

    /// The number of records of `sections` (which are the records whose
    /// hashes were added, in order) whose identity appeared before, and the
    /// number of the first of them (numbered through the sections in order).
    func duplicates(in sections: [[ListRecord]]) -> (count: Int, first: Int?) {
        let repeatedHashes = repeatedHashes()
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

    /// The hashes added more than once; the runs are gone through in two
    /// halves at once when there are enough of them (``SplitRead``).
    private func repeatedHashes() -> Set<UInt64> {
        let total = (0..<Self.runCount).reduce(0) { $0 + runCounts[$1] }
        guard total >= Self.minimumSplitCount, SplitRead.hasSecondCore else {
            return repeatedHashes(inRuns: 0..<Self.runCount)
        }
        let middle = Self.runCount / 2
        var first: Set<UInt64> = []
        var second: Set<UInt64> = []
        SplitRead.both({ first = repeatedHashes(inRuns: 0..<middle) }, { second = repeatedHashes(inRuns: middle..<Self.runCount) })
        return first.union(second)
    }

    /// The hashes of `runs` added more than once.
    private func repeatedHashes(inRuns runs: Range<Int>) -> Set<UInt64> {
        var repeated: Set<UInt64> = []
        // Open addressing over the hashes themselves; 0 marks an empty slot,
        // so the hash 0 is counted apart.
        var table = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 16)
        defer { table.deallocate() }
        for run in runs {
            let size = runCounts[run]
            guard size > 1 else { continue }
            let hashes = self.hashes + run * runCapacity
            var tableSize = 16
            while tableSize < size * 2 { tableSize *= 2 }
            if table.count < tableSize {
                table.deallocate()
                table = .allocate(capacity: tableSize)
            }
            let mask = tableSize - 1
            UnsafeMutableBufferPointer(rebasing: table[..<tableSize]).initialize(repeating: 0)
            var zeroCount = 0
            for entry in 0..<size {
                let hash = hashes[entry]
                guard hash != 0 else {
                    zeroCount += 1
                    continue
                }
                var slot = Int(truncatingIfNeeded: hash) & mask
                while true {
                    let other = table[slot]
                    if other == 0 {
                        table[slot] = hash
                        break
                    }
                    if other == hash {
                        repeated.insert(hash)
                        break
                    }
                    slot = (slot + 1) & mask
                }
            }
            if zeroCount > 1 { repeated.insert(0) }
        }
        return repeated
    }
}
