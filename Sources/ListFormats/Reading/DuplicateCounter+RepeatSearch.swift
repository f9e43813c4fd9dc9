extension DuplicateCounter {
    /// Finds the hashes that occur more than once in a run (see
    /// ``DuplicateCounter``), keeping its scratch space from one run to the next.
    struct RepeatSearch: ~Copyable {
        /// The hashes found more than once so far.
        var repeated: Set<UInt64> = []
        /// Two bitmaps of `bitmapCapacity` words, a bit per slot: the slots hit,
        /// and those hit twice.
        private var hit: UnsafeMutablePointer<UInt64>
        private var hitTwice: UnsafeMutablePointer<UInt64>
        private var bitmapCapacity = 0
        /// The hashes whose slot was hit twice, then the table that finds which
        /// of them are repeated.
        private var candidates: [UInt64] = []
        private var table: UnsafeMutableBufferPointer<UInt64>

        init() {
            hit = .allocate(capacity: 1)
            hitTwice = .allocate(capacity: 1)
            table = .allocate(capacity: 16)
        }

        deinit {
            hit.deallocate()
            hitTwice.deallocate()
            table.deallocate()
        }

        /// Takes note of the hashes of one run, `first` and `second` together.
        mutating func add(_ first: UnsafeBufferPointer<UInt64>, _ second: UnsafeBufferPointer<UInt64> = .init(start: nil, count: 0)) {
            let size = first.count + second.count
            guard size > 1 else { return }
            // About 16 slots per hash: a slot hit twice by different hashes is
            // rare, so the candidates are few.
            let slotBits = min(max(Int.bitWidth - size.leadingZeroBitCount + 4, 12), 22)
            let wordCount = 1 << (slotBits - 6)
            if wordCount > bitmapCapacity {
                hit.deallocate()
                hitTwice.deallocate()
                hit = .allocate(capacity: wordCount)
                hitTwice = .allocate(capacity: wordCount)
                bitmapCapacity = wordCount
            }
            hit.initialize(repeating: 0, count: wordCount)
            hitTwice.initialize(repeating: 0, count: wordCount)
            // Slots from bits the run (the top 8) does not fix.
            let slotMask = UInt64(wordCount &* 64 &- 1)
            let hit = self.hit
            let hitTwice = self.hitTwice
            func mark(_ hashes: UnsafeBufferPointer<UInt64>) {
                for hash in hashes {
                    let slot = Int(truncatingIfNeeded: (hash &>> 32) & slotMask)
                    let word = slot &>> 6
                    let bit: UInt64 = 1 &<< UInt64(slot & 63)
                    let before = hit[word]
                    hitTwice[word] |= before & bit
                    hit[word] = before | bit
                }
            }
            func gather(_ hashes: UnsafeBufferPointer<UInt64>, into candidates: inout [UInt64]) {
                for hash in hashes {
                    let slot = Int(truncatingIfNeeded: (hash &>> 32) & slotMask)
                    if hitTwice[slot &>> 6] & (1 &<< UInt64(slot & 63)) != 0 { candidates.append(hash) }
                }
            }
            mark(first)
            mark(second)
            candidates.removeAll(keepingCapacity: true)
            gather(first, into: &candidates)
            gather(second, into: &candidates)
            if candidates.count > 1 { addRepeats(among: candidates) }
        }

        /// Adds the hashes that occur more than once in `hashes` to `repeated`.
        private mutating func addRepeats(among hashes: [UInt64]) {
            // Open addressing over the hashes themselves; 0 marks an empty slot,
            // so the hash 0 is counted apart.
            var tableSize = 16
            while tableSize < hashes.count * 2 { tableSize *= 2 }
            if table.count < tableSize {
                table.deallocate()
                table = .allocate(capacity: tableSize)
            }
            let mask = tableSize - 1
            UnsafeMutableBufferPointer(rebasing: table[..<tableSize]).initialize(repeating: 0)
            var zeroCount = 0
            for hash in hashes {
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
    }
}
