/// Which source position each target position is the same element as, and back.
///
/// Built by ``init(source:target:)`` in O(*n* + *m*) expected time: an
/// open-addressing table over the source, one probe per target identifier.
/// Duplicated identifiers are matched first come, first served: the *k*-th
/// occurrence in the target is the *k*-th occurrence in the source; surplus
/// occurrences stay unmatched.
///
/// Hashing dominates the cost, so a target identifier is hashed only when it
/// has to be: when it equals the source identifier that follows the previous
/// match (the common case of a list that mostly keeps its order), its hash is
/// the one already computed for that source identifier; and when that source
/// identifier occurs only once and is not matched yet, it *is* the match,
/// without a look at the table, whose memory traffic dominates large lists.
/// Duplicated identifiers always go through the table, which keeps their
/// first-come, first-served order.
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

        let slots = UnsafeMutableBufferPointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(hash: 0, representative: -1, head: -1))
        // The next occurrence of the same identifier, in source order.
        let nextOccurrence = UnsafeMutableBufferPointer<Int32>.allocate(capacity: sourceCount)
        // The hash of each source identifier, for target identifiers equal to it.
        let hashes = UnsafeMutableBufferPointer<Int>.allocate(capacity: sourceCount)
        // Whether each source identifier occurs more than once.
        let isDuplicated = UnsafeMutableBufferPointer<Bool>.allocate(capacity: sourceCount)
        isDuplicated.initialize(repeating: false)
        defer {
            slots.deallocate()
            nextOccurrence.deallocate()
            hashes.deallocate()
            isDuplicated.deallocate()
        }

        source.withUnsafeBufferPointer { source in
            // Walk the source backwards so that each chain ends up in source order.
            var index = sourceCount
            while index > 0 {
                index &-= 1
                let identifier = source[index]
                let hash = identifier.hashValue
                hashes[index] = hash
                nextOccurrence[index] = -1
                var slot = hash & mask
                while true {
                    let representative = Int(slots[slot].representative)
                    if representative < 0 {
                        let position = Int32(truncatingIfNeeded: index)
                        slots[slot] = Slot(hash: hash, representative: position, head: position)
                        break
                    }
                    if slots[slot].hash == hash && source[representative] == identifier {
                        isDuplicated[index] = true
                        isDuplicated[Int(slots[slot].head)] = true
                        nextOccurrence[index] = slots[slot].head
                        slots[slot].head = Int32(truncatingIfNeeded: index)
                        break
                    }
                    slot = (slot &+ 1) & mask
                }
            }

            target.withUnsafeBufferPointer { target in
            sourceToTarget.withUnsafeMutableBufferPointer { sourceToTarget in
            targetToSource.withUnsafeMutableBufferPointer { targetToSource in
                // The source position expected to match next.
                var expected = 0
                for targetIndex in 0..<targetCount {
                    let identifier = target[targetIndex]
                    // When the identifier equals a source one, their hashes are
                    // equal, and a slot whose next occurrence is that very source
                    // position holds this identifier: no hashing, no comparison.
                    var known = -1
                    if expected < sourceCount && source[expected] == identifier {
                        known = expected
                    } else if expected &+ 1 < sourceCount && source[expected &+ 1] == identifier {
                        known = expected &+ 1
                    }
                    if known >= 0 && !isDuplicated[known] {
                        if sourceToTarget[known] < 0 {
                            sourceToTarget[known] = targetIndex
                            targetToSource[targetIndex] = known
                            expected = known &+ 1
                        }
                        continue
                    }
                    let hash = known >= 0 ? hashes[known] : identifier.hashValue
                    var slot = hash & mask
                    while true {
                        let representative = Int(slots[slot].representative)
                        if representative < 0 { break }
                        if slots[slot].hash == hash
                            && (Int(slots[slot].head) == known || source[representative] == identifier) {
                            // A unique identifier may have been matched without the table.
                            var head = Int(slots[slot].head)
                            while head >= 0 && sourceToTarget[head] >= 0 {
                                head = Int(nextOccurrence[head])
                            }
                            if head >= 0 {
                                sourceToTarget[head] = targetIndex
                                targetToSource[targetIndex] = head
                                slots[slot].head = nextOccurrence[head]
                                expected = head &+ 1
                            } else {
                                slots[slot].head = -1
                            }
                            break
                        }
                        slot = (slot &+ 1) & mask
                    }
                }
            }
            }
            }
        }
    }

    /// A slot of the table: an identifier's hash, one of its source positions
    /// (to compare identifiers), and its first source position not matched yet.
    @usableFromInline
    struct Slot {
        @usableFromInline var hash: Int
        @usableFromInline var representative: Int32
        @usableFromInline var head: Int32

        @inlinable
        init(hash: Int, representative: Int32, head: Int32) {
            self.hash = hash
            self.representative = representative
            self.head = head
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
