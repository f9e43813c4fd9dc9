extension IdentifierMatching {
    /// Matches `target` against `source` as ``matchThroughTable(source:target:sourceToTarget:targetToSource:offset:)``
    /// does, for identifiers that occur at most once in each list, without a table over the source:
    /// walks both lists in step and holds only the identifiers seen on one side and not yet on the
    /// other. Returns `false`, with nothing written, when those grow beyond `pendingLimit` (the
    /// lists are far out of order); the caller then goes through the table.
    ///
    /// With unique identifiers the matching is the pairing of equal identifiers, whatever finds
    /// it, so the result is the table's. Two versions of a list that differ in a few places keep
    /// a handful of identifiers pending at a time: one comparison per element, no hashing, and
    /// none of the table's megabytes of fresh memory (a million-element table is 16 MB, written
    /// and read at random).
    ///
    /// In each step either the current elements' identifiers are equal (a pair), or one of them
    /// was seen on the other side (a pair with it), or both are held; an identifier on both sides
    /// is found by the later of its two elements, whichever list that is in.
    @inlinable
    static func matchInStep<Element: Differentiable>(
        source: UnsafeBufferPointer<Element>,
        target: UnsafeBufferPointer<Element>,
        sourceToTarget: UnsafeMutableBufferPointer<Int>,
        targetToSource: UnsafeMutableBufferPointer<Int>,
        offset: Int,
        pendingLimit: Int
    ) -> Bool {
        let sourceCount = source.count
        let targetCount = target.count
        // Identifiers seen on one side only so far, with their positions.
        var pendingSource: [Element.DifferenceIdentifier: Int] = [:]
        var pendingTarget: [Element.DifferenceIdentifier: Int] = [:]
        @inline(__always)
        func pair(_ sourceIndex: Int, _ targetIndex: Int) {
            sourceToTarget[sourceIndex] = offset &+ targetIndex
            targetToSource[targetIndex] = offset &+ sourceIndex
        }
        var sourceIndex = 0
        var targetIndex = 0
        while sourceIndex < sourceCount && targetIndex < targetCount {
            let sourceIdentifier = source[sourceIndex].differenceIdentifier
            let targetIdentifier = target[targetIndex].differenceIdentifier
            if sourceIdentifier == targetIdentifier {
                pair(sourceIndex, targetIndex)
                sourceIndex &+= 1
                targetIndex &+= 1
                continue
            }
            if !pendingTarget.isEmpty, let earlier = pendingTarget.removeValue(forKey: sourceIdentifier) {
                pair(sourceIndex, earlier)
                sourceIndex &+= 1
                continue
            }
            if !pendingSource.isEmpty, let earlier = pendingSource.removeValue(forKey: targetIdentifier) {
                pair(earlier, targetIndex)
                targetIndex &+= 1
                continue
            }
            pendingSource[sourceIdentifier] = sourceIndex
            pendingTarget[targetIdentifier] = targetIndex
            sourceIndex &+= 1
            targetIndex &+= 1
            if pendingSource.count &+ pendingTarget.count > pendingLimit {
                // Far out of order: undo, and leave it to the table.
                for index in 0..<sourceIndex { sourceToTarget[index] = -1 }
                for index in 0..<targetIndex { targetToSource[index] = -1 }
                return false
            }
        }
        // One side is through: the rest of the other pairs only with what is held.
        while sourceIndex < sourceCount && !pendingTarget.isEmpty {
            if let earlier = pendingTarget.removeValue(forKey: source[sourceIndex].differenceIdentifier) {
                pair(sourceIndex, earlier)
            }
            sourceIndex &+= 1
        }
        while targetIndex < targetCount && !pendingSource.isEmpty {
            if let earlier = pendingSource.removeValue(forKey: target[targetIndex].differenceIdentifier) {
                pair(earlier, targetIndex)
            }
            targetIndex &+= 1
        }
        return true
    }

    /// The most identifiers ``matchInStep(source:target:sourceToTarget:targetToSource:offset:pendingLimit:)``
    /// holds for lists of `sourceCount` and `targetCount` elements before it leaves them to the
    /// table: a sixteenth of the elements (at least 1,024), so that giving up costs a fraction
    /// of what the table does.
    @inlinable
    static func inStepPendingLimit(sourceCount: Int, targetCount: Int) -> Int {
        max(1_024, (sourceCount &+ targetCount) / 16)
    }
}
