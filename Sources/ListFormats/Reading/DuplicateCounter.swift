/// Counts records whose identity equals an earlier record's.
///
/// Runs once, after the scan, over the records' identity hashes: they are
/// first partitioned by their top bits into buckets small enough for the
/// cache, then each bucket goes through a small open-addressing table. A
/// single table over a million records would miss the cache on every insert;
/// this stays O(*n*) with sequential memory traffic. Records whose 64-bit
/// hashes match are compared byte for byte by `isEqual`.
struct DuplicateCounter {
    /// Records whose identity appeared before.
    private(set) var duplicateCount = 0

    /// The number of the first record whose identity appeared before.
    private(set) var firstDuplicate: Int?

    private static let bucketBits = 8

    /// Counts the duplicates among records `0..<hashes.count`, whose identity
    /// hashes are `hashes`; `isEqual` says whether two records with equal
    /// hashes have equal identities.
    init(hashes: [UInt64], isEqual: (Int, Int) -> Bool) {
        let count = hashes.count
        guard count > 1 else { return }
        let shift = UInt64(64 - Self.bucketBits)
        var bucketStarts = Array(repeating: 0, count: (1 << Self.bucketBits) + 1)
        for hash in hashes {
            bucketStarts[Int(hash >> shift) + 1] += 1
        }
        for bucket in 1..<bucketStarts.count {
            bucketStarts[bucket] += bucketStarts[bucket - 1]
        }
        // Records by bucket, in file order within each bucket.
        var entries = [(hash: UInt64, number: Int)](repeating: (0, 0), count: count)
        var next = bucketStarts
        for (number, hash) in hashes.enumerated() {
            let bucket = Int(hash >> shift)
            entries[next[bucket]] = (hash, number)
            next[bucket] += 1
        }
        var table: [Int32] = []
        for bucket in 0..<(1 << Self.bucketBits) {
            let range = bucketStarts[bucket]..<bucketStarts[bucket + 1]
            guard range.count > 1 else { continue }
            var size = 4
            while size < range.count * 2 { size *= 2 }
            table.removeAll(keepingCapacity: true)
            table.append(contentsOf: repeatElement(-1, count: size))
            let mask = size - 1
            for entry in range {
                let (hash, number) = entries[entry]
                var slot = Int(truncatingIfNeeded: hash) & mask
                var isDuplicate = false
                while table[slot] >= 0 {
                    let other = entries[range.lowerBound + Int(table[slot])]
                    if other.hash == hash, isEqual(other.number, number) {
                        isDuplicate = true
                        break
                    }
                    slot = (slot + 1) & mask
                }
                if isDuplicate {
                    duplicateCount += 1
                    firstDuplicate = min(firstDuplicate ?? number, number)
                } else {
                    table[slot] = Int32(entry - range.lowerBound)
                }
            }
        }
    }
}
