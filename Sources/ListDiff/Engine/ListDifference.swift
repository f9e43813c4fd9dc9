/// The difference between two sectioned lists, worked out on positions.
///
/// Both lists are flattened: the elements of all sections in one array, and
/// `bounds[s]..<bounds[s + 1]` the range of section `s`. A linear list is a
/// list with one section that is always kept.
///
/// The operations follow DifferenceKit's stages and index spaces (see
/// `docs/ENGINE.md`); the moves are minimal: among the elements that stay in
/// the same section, exactly those outside a longest increasing subsequence
/// of their old positions move, and so for sections.
///
/// Complexity: O(*n* + *m*) expected for matching, plus O(*k* log *k*) for the
/// *k* elements that change order.
@usableFromInline
struct ListDifference {
    /// Section `s` of the source spans `sourceBounds[s]..<sourceBounds[s + 1]`.
    @usableFromInline let sourceBounds: [Int]

    /// Section `t` of the target spans `targetBounds[t]..<targetBounds[t + 1]`.
    @usableFromInline let targetBounds: [Int]

    /// Which source section each target section is; -1 for deleted and inserted ones.
    @usableFromInline let sections: IdentifierMatching

    /// Which source element each target element is, for pairs whose source
    /// section and target section both survive; -1 otherwise.
    @usableFromInline let elements: IdentifierMatching

    @usableFromInline var sectionDeleted: [Int] = []
    @usableFromInline var sectionInserted: [Int] = []
    @usableFromInline var sectionUpdated: [Int] = []
    @usableFromInline var sectionMoved: [(source: Int, target: Int)] = []
    @usableFromInline var elementDeleted: [ElementPath] = []
    @usableFromInline var elementInserted: [ElementPath] = []
    @usableFromInline var elementUpdated: [ElementPath] = []
    @usableFromInline var elementMoved: [(source: ElementPath, target: ElementPath)] = []

    /// Computes the difference.
    ///
    /// - Parameters:
    ///   - source: The source's elements, section after section.
    ///   - sourceBounds: Section boundaries in `source`: `sectionCount + 1` offsets.
    ///   - target: The target's elements, section after section.
    ///   - targetBounds: Section boundaries in `target`.
    ///   - sections: The matching of source sections to target sections.
    ///   - sectionUpdated: Target indices of kept sections whose content changed.
    @inlinable
    init<Element: Differentiable>(
        source: ContiguousArray<Element>,
        sourceBounds: [Int],
        target: ContiguousArray<Element>,
        targetBounds: [Int],
        sections: IdentifierMatching,
        sectionUpdated: [Int],
        known: KnownEqualEnds = .nothing
    ) {
        self.sourceBounds = sourceBounds
        self.targetBounds = targetBounds
        self.sections = sections
        self.sectionUpdated = sectionUpdated
        let sourceSectionCount = sourceBounds.count - 1
        let targetSectionCount = targetBounds.count - 1

        var order: [Int] = []
        var kept: [Bool] = []
        var scratch = LongestIncreasingSubsequenceScratch()

        // Sections: deletions in source space, then inserts and minimal moves.
        var sectionAfterDeletion = [Int](repeating: -1, count: sourceSectionCount)
        var survivingSections = 0
        for section in 0..<sourceSectionCount {
            if sections.sourceToTarget[section] < 0 {
                sectionDeleted.append(section)
            } else {
                sectionAfterDeletion[section] = survivingSections
                survivingSections += 1
            }
        }
        for section in 0..<targetSectionCount {
            let sourceSection = sections.targetToSource[section]
            if sourceSection < 0 {
                sectionInserted.append(section)
            } else {
                order.append(sectionAfterDeletion[sourceSection])
            }
        }
        markLongestIncreasingSubsequence(order, into: &kept, scratch: &scratch)
        var rank = 0
        for section in 0..<targetSectionCount where sections.targetToSource[section] >= 0 {
            if !kept[rank] {
                sectionMoved.append((source: order[rank], target: section))
            }
            rank += 1
        }

        // Elements: match identifiers across the whole list.
        known._check(source: source, target: target)
        let isSectioned = sourceSectionCount != 1 || targetSectionCount != 1
        // A linear list's elements paired in place at both ends (see IdentifierMatching) are
        // kept where they are: they take part in neither deletions, inserts nor moves, and
        // precede and follow every other kept element, so a longest increasing subsequence of
        // the middle plus them is one of the whole. Only their updates are looked for, so an
        // edit in a long list costs one pass of content comparisons beyond the matching, and
        // the matching stores no position for them.
        let isTrimmed = !isSectioned && sectionDeleted.isEmpty && sectionInserted.isEmpty
        var elements = IdentifierMatching(source: source, target: target, known: known, storesPairedEnds: !isTrimmed)
        var sourceSectionOfElement = [Int](repeating: 0, count: isSectioned ? source.count : 0)
        if isSectioned {
            for section in 1..<max(sourceSectionCount, 1) {
                for index in sourceBounds[section]..<sourceBounds[section + 1] {
                    sourceSectionOfElement[index] = section
                }
            }
        }

        // An element whose source or target section is deleted or inserted
        // goes with its section: deleted from the source, inserted in the target.
        if !sectionDeleted.isEmpty || !sectionInserted.isEmpty {
            for section in 0..<targetSectionCount {
                let targetSectionSurvives = sections.targetToSource[section] >= 0
                for targetIndex in targetBounds[section]..<targetBounds[section + 1] {
                    let sourceIndex = elements.targetToSource[targetIndex]
                    guard sourceIndex >= 0 else { continue }
                    if !targetSectionSurvives || sections.sourceToTarget[sourceSectionOfElement[sourceIndex]] < 0 {
                        elements.targetToSource[targetIndex] = -1
                        elements.sourceToTarget[sourceIndex] = -1
                    }
                }
            }
        }

        let prefix = isTrimmed ? elements.pairedPrefix : 0
        let suffix = isTrimmed ? elements.pairedSuffix : 0
        let sourceMiddle = prefix..<(source.count &- suffix)
        // Of those, the ends the caller knows equal need not even have their content compared.
        // (Lists of one length paired in place throughout: the known suffix is paired position
        // by position, at the end of the paired prefix.)
        let pairedThroughout = source.count == target.count && prefix &+ suffix == source.count
        let knownPrefix = isTrimmed ? min(known.prefix, prefix) : 0
        let knownSuffix = isTrimmed ? min(known.suffix, pairedThroughout ? source.count &- knownPrefix : suffix) : 0

        var deleted: [ElementPath] = []
        var inserted: [ElementPath] = []
        var updated: [ElementPath] = []
        var moved: [(source: ElementPath, target: ElementPath)] = []
        // Deletions, in kept source sections, and positions once they are done: for the
        // source positions in `sourceMiddle`, at `position - prefix`.
        var positionAfterDeletion = [Int](repeating: -1, count: sourceMiddle.count)
        let sourceToTarget = elements.sourceToTarget
        do {
            positionAfterDeletion.withUnsafeMutableBufferPointer { positionAfterDeletion in
                for section in 0..<sourceSectionCount where sections.sourceToTarget[section] >= 0 {
                    let start = sourceBounds[section]
                    let range = sourceMiddle.clamped(to: start..<sourceBounds[section + 1])
                    var survivors = range.lowerBound &- start
                    for sourceIndex in range {
                        if sourceToTarget[sourceIndex] >= 0 {
                            positionAfterDeletion[sourceIndex &- prefix] = survivors
                            survivors &+= 1
                        } else {
                            deleted.append(ElementPath(element: sourceIndex &- start, section: section))
                        }
                    }
                }
            }
        }

        // Inserts, updates and minimal moves, target section by target section.
        let targetToSource = elements.targetToSource
        source.withUnsafeBufferPointer { source in
        target.withUnsafeBufferPointer { target in
        positionAfterDeletion.withUnsafeBufferPointer { positionAfterDeletion in
        sourceSectionOfElement.withUnsafeBufferPointer { sourceSectionOfElement in
            for section in 0..<targetSectionCount {
                let sourceSection = sections.targetToSource[section]
                guard sourceSection >= 0 else { continue }
                let start = targetBounds[section]
                let end = targetBounds[section + 1]
                let middle = (start &+ prefix)..<(end &- suffix)

                order.removeAll(keepingCapacity: true)
                // At most one position per target element: reserved at once rather than grown
                // by doubling (a million positions copied ~20 times over, in fresh pages).
                order.reserveCapacity(middle.count)
                for targetIndex in middle {
                    let sourceIndex = targetToSource[targetIndex]
                    if sourceIndex >= 0 && (!isSectioned || sourceSectionOfElement[sourceIndex] == sourceSection) {
                        order.append(positionAfterDeletion[sourceIndex &- prefix])
                    }
                }
                markLongestIncreasingSubsequence(order, into: &kept, scratch: &scratch)

                var rank = 0
                for targetIndex in (start &+ knownPrefix)..<(end &- knownSuffix) {
                    let sourceIndex = targetToSource[targetIndex]
                    guard sourceIndex >= 0 else {
                        inserted.append(ElementPath(element: targetIndex &- start, section: section))
                        continue
                    }
                    let elementSourceSection = isSectioned ? sourceSectionOfElement[sourceIndex] : 0
                    if !target[targetIndex].isContentEqual(to: source[sourceIndex]) {
                        updated.append(
                            ElementPath(element: sourceIndex &- sourceBounds[elementSourceSection], section: elementSourceSection)
                        )
                    }
                    guard middle.contains(targetIndex) else { continue }
                    if elementSourceSection == sourceSection {
                        rank &+= 1
                        if kept[rank &- 1] { continue }
                    }
                    moved.append((
                        source: ElementPath(
                            element: positionAfterDeletion[sourceIndex &- prefix],
                            section: sections.sourceToTarget[elementSourceSection]
                        ),
                        target: ElementPath(element: targetIndex &- start, section: section)
                    ))
                }
            }
        }
        }
        }
        }
        elementDeleted = deleted
        elementInserted = inserted
        elementUpdated = updated
        elementMoved = moved
        self.elements = elements
    }
}

extension ListDifference {
    /// The bounds of a one-section list of `count` elements.
    @inlinable
    static func linearBounds(count: Int) -> [Int] {
        [0, count]
    }

    /// Source section `section` once the element updates are done: elements
    /// that are kept hold their target value.
    @inlinable
    func updatedElements<Element>(
        ofSourceSection section: Int,
        source: ContiguousArray<Element>,
        target: ContiguousArray<Element>
    ) -> LazyMapCollection<Range<Int>, Element> {
        (sourceBounds[section]..<sourceBounds[section + 1]).lazy.map { [elements] sourceIndex in
            let targetIndex = elements.sourceToTarget[sourceIndex]
            return targetIndex >= 0 ? target[targetIndex] : source[sourceIndex]
        }
    }

    /// Source section `section` once the deletions are done: the kept
    /// elements, in source order, with their target values.
    @inlinable
    func survivingElements<Element>(
        ofSourceSection section: Int,
        target: ContiguousArray<Element>
    ) -> LazyMapCollection<LazyFilterCollection<Range<Int>>, Element> {
        let elements = self.elements
        return (sourceBounds[section]..<sourceBounds[section + 1]).lazy
            .filter { elements.sourceToTarget[$0] >= 0 }
            .map { target[elements.sourceToTarget[$0]] }
    }

    /// Target section `section`'s elements.
    @inlinable
    func targetElements<Element>(
        ofTargetSection section: Int,
        target: ContiguousArray<Element>
    ) -> ArraySlice<Element> {
        ArraySlice(target[targetBounds[section]..<targetBounds[section + 1]])
    }
}

extension ListDifference {
    /// Reports the element paths of a linear difference in section `section`
    /// instead of section 0.
    @inlinable
    mutating func placeElements(inSection section: Int) {
        placeElements(inSection: section, after: 0)
    }

    /// Reports the element paths of a linear difference in section `section`, each `prefix`
    /// elements further: the difference of two lists' middles as that of the whole lists, whose
    /// first `prefix` elements are paired in place.
    @inlinable
    mutating func placeElements(inSection section: Int, after prefix: Int) {
        func place(_ path: ElementPath) -> ElementPath {
            ElementPath(element: path.element &+ prefix, section: section)
        }
        elementDeleted = elementDeleted.map(place)
        elementInserted = elementInserted.map(place)
        elementUpdated = elementUpdated.map(place)
        elementMoved = elementMoved.map { (source: place($0.source), target: place($0.target)) }
    }
}
