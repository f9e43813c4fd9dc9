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
    var sourceToTarget: PositionMap

    /// For each target position, its source position, or -1.
    @usableFromInline
    var targetToSource: PositionMap

    /// How many positions at the start of both lists pair with each other in place
    /// (`sourceToTarget[i] == i` for `i < pairedPrefix`), without the table.
    @usableFromInline
    var pairedPrefix = 0

    /// How many positions at the end of both lists pair with each other in place (the last
    /// `pairedSuffix` of the source with the last `pairedSuffix` of the target, in order).
    /// No identifier of these occurs elsewhere in the middle of either list.
    @usableFromInline
    var pairedSuffix = 0

    /// Matches the elements of `source` and `target` by their ``Differentiable/differenceIdentifier``,
    /// read from the elements as needed rather than copied out first (a million identifiers
    /// are megabytes to write and read back).
    ///
    /// `known` ends are paired without comparing their identifiers, and with unique identifiers
    /// the suffix is paired without hashing it: the matching is the same as without them.
    /// Unless `storesPairedEnds`, the positions paired in place at both ends are not stored
    /// (``PositionMap``): the two maps then take memory and writes for the elements between
    /// the ends only, and cannot be changed at the ends.
    ///
    /// When `known` says the identifiers are unique, the elements between the ends are first
    /// paired in step (``matchInStep(source:target:sourceToTarget:targetToSource:offset:pendingLimit:)``),
    /// and go through the table only when more than `inStepPendingLimit` of them (by default
    /// ``inStepPendingLimit(sourceCount:targetCount:)``) are out of step at once.
    @inlinable
    init<Element: Differentiable>(
        source: ContiguousArray<Element>, target: ContiguousArray<Element>, known: KnownEqualEnds = .nothing,
        storesPairedEnds: Bool = true, inStepPendingLimit: Int? = nil
    ) {
        let sourceCount = source.count
        let targetCount = target.count
        guard sourceCount > 0, targetCount > 0 else {
            sourceToTarget = PositionMap(unmatched: sourceCount)
            targetToSource = PositionMap(unmatched: targetCount)
            return
        }
        precondition(sourceCount < Int(Int32.max), "ListDiff supports lists of fewer than 2^31 elements")

        let (prefix, suffix) = source.withUnsafeBufferPointer { source in
            target.withUnsafeBufferPointer { target in
                Self.pairedEnds(source: source, target: target, known: known)
            }
        }
        // The positions stored: all, or those between the paired ends.
        let start = storesPairedEnds ? 0 : prefix
        let stored = storesPairedEnds ? 0 : suffix
        var sourceStored = [Int](repeating: -1, count: sourceCount &- start &- stored)
        var targetStored = [Int](repeating: -1, count: targetCount &- start &- stored)
        source.withUnsafeBufferPointer { source in
        target.withUnsafeBufferPointer { target in
        sourceStored.withUnsafeMutableBufferPointer { sourceToTarget in
        targetStored.withUnsafeMutableBufferPointer { targetToSource in
            if storesPairedEnds {
                for position in 0..<prefix {
                    sourceToTarget[position] = position
                    targetToSource[position] = position
                }
                for offset in 0..<suffix {
                    sourceToTarget[sourceCount &- 1 &- offset] = targetCount &- 1 &- offset
                    targetToSource[targetCount &- 1 &- offset] = sourceCount &- 1 &- offset
                }
            }
            let sourceMiddle = UnsafeBufferPointer(rebasing: source[prefix..<(sourceCount &- suffix)])
            let targetMiddle = UnsafeBufferPointer(rebasing: target[prefix..<(targetCount &- suffix)])
            let sourceMiddleToTarget = UnsafeMutableBufferPointer(rebasing: sourceToTarget[(prefix &- start)..<(sourceCount &- suffix &- start)])
            let targetMiddleToSource = UnsafeMutableBufferPointer(rebasing: targetToSource[(prefix &- start)..<(targetCount &- suffix &- start)])
            // Unique identifiers pair in step when the lists are mostly in the same order.
            let pairedInStep = known.identifiersAreUnique && Self.matchInStep(
                source: sourceMiddle, target: targetMiddle,
                sourceToTarget: sourceMiddleToTarget, targetToSource: targetMiddleToSource, offset: prefix,
                pendingLimit: inStepPendingLimit ?? Self.inStepPendingLimit(sourceCount: sourceMiddle.count, targetCount: targetMiddle.count)
            )
            if !pairedInStep {
                Self.matchThroughTable(
                    source: sourceMiddle, target: targetMiddle,
                    sourceToTarget: sourceMiddleToTarget, targetToSource: targetMiddleToSource, offset: prefix
                )
            }
        }
        }
        }
        }
        sourceToTarget = PositionMap(start: start, stored: sourceStored, shift: targetCount &- sourceCount, count: sourceCount)
        targetToSource = PositionMap(start: start, stored: targetStored, shift: sourceCount &- targetCount, count: targetCount)
        pairedPrefix = prefix
        pairedSuffix = suffix
    }

    /// How many elements at the start and at the end of two non-empty lists pair with each other
    /// in place. A common prefix always pairs first come, first served; a common suffix does
    /// when none of its identifiers occurs in the middle of either list (else the middle holds
    /// earlier occurrences), and is paired in place only when it is longer than the middles.
    @inlinable
    static func pairedEnds<Element: Differentiable>(
        source: UnsafeBufferPointer<Element>, target: UnsafeBufferPointer<Element>, known: KnownEqualEnds
    ) -> (prefix: Int, suffix: Int) {
        let sourceCount = source.count
        let targetCount = target.count
        let shortest = min(sourceCount, targetCount)
        var prefix = min(known.prefix, shortest)
        // Lists of one length pair the known suffix position by position too: a prefix that
        // reaches it runs to the end without comparing it (an element changed in place).
        let knownFrom = sourceCount == targetCount ? sourceCount &- min(known.suffix, shortest) : shortest
        while prefix < shortest {
            if prefix >= knownFrom {
                prefix = shortest
                break
            }
            guard source[prefix].differenceIdentifier == target[prefix].differenceIdentifier else { break }
            prefix &+= 1
        }
        var suffix = min(known.suffix, shortest &- prefix)
        while suffix < shortest &- prefix
            && source[sourceCount &- 1 &- suffix].differenceIdentifier
                == target[targetCount &- 1 &- suffix].differenceIdentifier {
            suffix &+= 1
        }
        let sourceMiddle = prefix..<(sourceCount &- suffix)
        let targetMiddle = prefix..<(targetCount &- suffix)
        // Checking the suffix costs a hash per suffix element: worth it when
        // the suffix is longer than what the table would hold anyway.
        if suffix > 0 {
            if suffix <= sourceMiddle.count &+ targetMiddle.count {
                suffix = 0
            } else if !known.identifiersAreUnique {
                // (Unique identifiers: a suffix identifier is in neither middle, as it occurs
                // once in each list, in the suffix.)
                var middle = Set<Element.DifferenceIdentifier>(minimumCapacity: sourceMiddle.count &+ targetMiddle.count)
                middle.formUnion(source[sourceMiddle].lazy.map(\.differenceIdentifier))
                middle.formUnion(target[targetMiddle].lazy.map(\.differenceIdentifier))
                for position in (sourceCount &- suffix)..<sourceCount
                where middle.contains(source[position].differenceIdentifier) {
                    suffix = 0
                    break
                }
            }
        }
        return (prefix, suffix)
    }

    /// Matches `target` against `source` through the table; both are ranges
    /// of the whole lists starting at `offset`, and the positions written
    /// into `sourceToTarget` and `targetToSource` are the whole lists'.
    @inlinable
    static func matchThroughTable<Element: Differentiable>(
        source: UnsafeBufferPointer<Element>,
        target: UnsafeBufferPointer<Element>,
        sourceToTarget: UnsafeMutableBufferPointer<Int>,
        targetToSource: UnsafeMutableBufferPointer<Int>,
        offset: Int
    ) {
        let sourceCount = source.count
        let targetCount = target.count
        guard sourceCount > 0, targetCount > 0 else { return }
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
        func find(_ identifier: Element.DifferenceIdentifier, hash: Int, in source: UnsafeBufferPointer<Element>) -> Int {
            let high = UInt32(truncatingIfNeeded: hash &>> 32)
            var slot = hash & mask
            while true {
                let representative = Int(slots[slot].representative)
                if representative < 0 || (slots[slot].hashHigh == high && source[representative].differenceIdentifier == identifier) {
                    return slot
                }
                slot = (slot &+ 1) & mask
            }
        }

        do {
            // Walk the source backwards so that each chain ends up in source order.
            var index = sourceCount
            while index > 0 {
                index &-= 1
                let identifier = source[index].differenceIdentifier
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

            do {
                // The source position expected to match next.
                var expected = 0
                for targetIndex in 0..<targetCount {
                    let identifier = target[targetIndex].differenceIdentifier
                    // A target identifier equal to the source one after the
                    // previous match, that occurs once in the source and is not
                    // matched yet, matches it: no hashing, no table.
                    if expected < sourceCount && source[expected].differenceIdentifier == identifier && !isDuplicated[expected] {
                        if sourceToTarget[expected] < 0 {
                            sourceToTarget[expected] = offset &+ targetIndex
                            targetToSource[targetIndex] = offset &+ expected
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
                        sourceToTarget[head] = offset &+ targetIndex
                        targetToSource[targetIndex] = offset &+ head
                        heads[representative] = nextOccurrence[head]
                        expected = head &+ 1
                    } else {
                        heads[representative] = -1
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
        self.sourceToTarget = PositionMap(start: 0, stored: sourceToTarget, shift: 0, count: sourceToTarget.count)
        self.targetToSource = PositionMap(start: 0, stored: targetToSource, shift: 0, count: targetToSource.count)
    }
}
