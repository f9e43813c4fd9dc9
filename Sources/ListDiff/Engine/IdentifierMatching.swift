/// Which source position each target position is the same element as, and back.
///
/// Built by ``init(source:target:)`` in O(*n* + *m*) expected time: one hash
/// of every identifier, an open-addressing table over the source, one probe
/// per target identifier. Duplicated identifiers are matched first come,
/// first served: the *k*-th occurrence in the target is the *k*-th occurrence
/// in the source; surplus occurrences stay unmatched.
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
        sourceToTarget = Array(repeating: -1, count: source.count)
        targetToSource = Array(repeating: -1, count: target.count)
        guard !source.isEmpty, !target.isEmpty else { return }
        precondition(source.count < Int(Int32.max), "ListDiff supports lists of fewer than 2^31 elements")

        // Load factor at most 1/2 keeps probe sequences short.
        var capacity = 8
        while capacity < source.count * 2 { capacity &<<= 1 }
        let mask = capacity &- 1

        var hashes = ContiguousArray<Int>(repeating: 0, count: source.count)
        // A slot holds one source occurrence of an identifier (its
        // representative, for comparisons) and the first occurrence not yet matched.
        var representatives = ContiguousArray<Int32>(repeating: -1, count: capacity)
        var heads = ContiguousArray<Int32>(repeating: -1, count: capacity)
        // The next occurrence of the same identifier, in source order.
        var nextOccurrence = ContiguousArray<Int32>(repeating: -1, count: source.count)

        source.withUnsafeBufferPointer { source in
            hashes.withUnsafeMutableBufferPointer { hashes in
            representatives.withUnsafeMutableBufferPointer { representatives in
            heads.withUnsafeMutableBufferPointer { heads in
            nextOccurrence.withUnsafeMutableBufferPointer { nextOccurrence in
                // Walk the source backwards so that each chain ends up in source order.
                for index in source.indices.reversed() {
                    let hash = source[index].hashValue
                    hashes[index] = hash
                    var slot = hash & mask
                    while true {
                        let representative = Int(representatives[slot])
                        if representative < 0 {
                            representatives[slot] = Int32(truncatingIfNeeded: index)
                            heads[slot] = Int32(truncatingIfNeeded: index)
                            break
                        }
                        if hashes[representative] == hash && source[representative] == source[index] {
                            nextOccurrence[index] = heads[slot]
                            heads[slot] = Int32(truncatingIfNeeded: index)
                            break
                        }
                        slot = (slot &+ 1) & mask
                    }
                }

                target.withUnsafeBufferPointer { target in
                    sourceToTarget.withUnsafeMutableBufferPointer { sourceToTarget in
                    targetToSource.withUnsafeMutableBufferPointer { targetToSource in
                        for targetIndex in target.indices {
                            let identifier = target[targetIndex]
                            let hash = identifier.hashValue
                            var slot = hash & mask
                            while true {
                                let representative = Int(representatives[slot])
                                if representative < 0 { break }
                                if hashes[representative] == hash && source[representative] == identifier {
                                    let head = Int(heads[slot])
                                    if head >= 0 {
                                        sourceToTarget[head] = targetIndex
                                        targetToSource[targetIndex] = head
                                        heads[slot] = nextOccurrence[head]
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
            }
            }
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
