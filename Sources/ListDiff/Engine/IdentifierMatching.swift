/// Which source position each target position is the same element as, and back.
///
/// Built by ``init(source:target:)`` in O(*n* + *m*) expected time: an
/// open-addressing table over the source, one probe per target identifier.
/// Duplicated identifiers are matched first come, first served: the *k*-th
/// occurrence in the target is the *k*-th occurrence in the source; surplus
/// occurrences stay unmatched.
///
/// Hashing and the table's memory traffic dominate the cost, so a target
/// identifier skips both when it can: when it equals the source identifier
/// that follows the previous match (the common case of a list that mostly
/// keeps its order), occurs only once in the source and is not matched yet,
/// it *is* the match. Duplicated identifiers always go through the table,
/// which keeps their first-come, first-served order.
@usableFromInline
struct IdentifierMatching {
    /// For each source position, its target position, or -1.
    @usableFromInline
    var sourceToTarget: [Int]

    /// For each target position, its source position, or -1.
    @usableFromInline
    var targetToSource: [Int]

    @inlinable
    init<Identifier: Hashable>(source: ContiguousArray<Identifier>, target: ContiguousArray<Identifier>) {
        let sourceCount = source.count
        let targetCount = target.count
        sourceToTarget = Array(repeating: -1, count: sourceCount)
        targetToSource = Array(repeating: -1, count: targetCount)
        guard sourceCount > 0, targetCount > 0 else { return }
        precondition(sourceCount < Int(Int32.max), "ListDiff supports lists of fewer than 2^31 elements")

        // Load factor at most 1/2 keeps probe sequences short.
        var capacity = 8
        while capacity < sourceCount * 2 { capacity &<<= 1 }
        let mask = capacity &- 1

        // A slot holds the high half of an identifier's hash and one of its
        // source positions, its representative: 8 bytes, so that the table
        // stays small in caches.
        let slots = UnsafeMutableBufferPointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(hashHigh: 0, representative: -1))
        // Per representative: the first occurrence not matched yet.
        let heads = UnsafeMutableBufferPointer<Int32>.allocate(capacity: sourceCount)
        // The next occurrence of the same identifier, in source order.
        let nextOccurrence = UnsafeMutableBufferPointer<Int32>.allocate(capacity: sourceCount)
        // Whether each source identifier occurs more than once.
        let isDuplicated = UnsafeMutableBufferPointer<Bool>.allocate(capacity: sourceCount)
        isDuplicated.initialize(repeating: false)
        defer {
            slots.deallocate()
            heads.deallocate()
            nextOccurrence.deallocate()
            isDuplicated.deallocate()
        }

        /// The slot of `identifier`, or of the empty place where it would go.
        @inline(__always)
        func find(_ identifier: Identifier, hash: Int, in source: UnsafeBufferPointer<Identifier>) -> Int {
            let high = UInt32(truncatingIfNeeded: hash &>> 32)
            var slot = hash & mask
            while true {
                let representative = Int(slots[slot].representative)
                if representative < 0 || (slots[slot].hashHigh == high && source[representative] == identifier) {
                    return slot
                }
                slot = (slot &+ 1) & mask
            }
        }

        source.withUnsafeBufferPointer { source in
            // Walk the source backwards so that each chain ends up in source order.
            var index = sourceCount
            while index > 0 {
                index &-= 1
                let identifier = source[index]
                let hash = identifier.hashValue
                let slot = find(identifier, hash: hash, in: source)
                let representative = Int(slots[slot].representative)
                let position = Int32(truncatingIfNeeded: index)
                if representative < 0 {
                    slots[slot] = Slot(hashHigh: UInt32(truncatingIfNeeded: hash &>> 32), representative: position)
                    heads[index] = position
                    nextOccurrence[index] = -1
                } else {
                    isDuplicated[index] = true
                    isDuplicated[Int(heads[representative])] = true
                    nextOccurrence[index] = heads[representative]
                    heads[representative] = position
                }
            }

            target.withUnsafeBufferPointer { target in
            sourceToTarget.withUnsafeMutableBufferPointer { sourceToTarget in
            targetToSource.withUnsafeMutableBufferPointer { targetToSource in
                // The source position expected to match next.
                var expected = 0
                for targetIndex in 0..<targetCount {
                    let identifier = target[targetIndex]
                    // A target identifier equal to the source one after the
                    // previous match, that occurs once in the source and is not
                    // matched yet, matches it: no hashing, no table.
                    if expected < sourceCount && source[expected] == identifier && !isDuplicated[expected] {
                        if sourceToTarget[expected] < 0 {
                            sourceToTarget[expected] = targetIndex
                            targetToSource[targetIndex] = expected
                            expected &+= 1
                        }
                        continue
                    }
                    let slot = find(identifier, hash: identifier.hashValue, in: source)
                    let representative = Int(slots[slot].representative)
                    guard representative >= 0 else { continue }
                    // Unique identifiers may have been matched without the table.
                    var head = Int(heads[representative])
                    while head >= 0 && sourceToTarget[head] >= 0 {
                        head = Int(nextOccurrence[head])
                    }
                    if head >= 0 {
                        sourceToTarget[head] = targetIndex
                        targetToSource[targetIndex] = head
                        heads[representative] = nextOccurrence[head]
                        expected = head &+ 1
                    } else {
                        heads[representative] = -1
                    }
                }
            }
            }
            }
        }
    }

    /// A slot of the table: the high half of an identifier's hash and one of
    /// its source positions, or -1 when empty.
    @usableFromInline
    struct Slot {
        @usableFromInline var hashHigh: UInt32
        @usableFromInline var representative: Int32

        @inlinable
        init(hashHigh: UInt32, representative: Int32) {
            self.hashHigh = hashHigh
            self.representative = representative
        }
    }

    /// The matching of a one-section list with itself: section 0 is section 0.
    @inlinable
    static var singleSection: IdentifierMatching {
        IdentifierMatching(sourceToTarget: [0], targetToSource: [0])
    }

    @inlinable
    init(sourceToTarget: [Int], targetToSource: [Int]) {
        self.sourceToTarget = sourceToTarget
        self.targetToSource = targetToSource
    }
}
