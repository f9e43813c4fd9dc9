/// The source, target and difference behind a linear staged changeset computed on the middles
/// between ends known equal (``StagedChangeset/init(middlesOf:to:section:knownEqualEnds:)``):
/// the whole lists as the caller holds them (shared, not copied), only the middles copied, and
/// the middles' difference. The state after any stage is built on demand, as
/// ``LinearDifferenceStorage`` builds it, from the target's ends and the middles' difference.
@usableFromInline
final class MiddleDifferenceStorage<Collection: RangeReplaceableCollection>: DifferenceStorage
where Collection.Element: Differentiable {
    @usableFromInline typealias Element = Collection.Element

    /// The difference of the whole lists: the middles' with element paths past the prefix, in
    /// the changeset's section.
    @usableFromInline let difference: ListDifference
    /// The middles' own difference (paths from 0 in section 0), whose matching maps the middles.
    @usableFromInline let middle: ListDifference
    @usableFromInline let source: Collection
    @usableFromInline let target: Collection
    @usableFromInline let sourceMiddle: ContiguousArray<Element>
    @usableFromInline let targetMiddle: ContiguousArray<Element>
    /// How many elements at the start of both lists are outside the middles.
    @usableFromInline let prefix: Int

    @inlinable
    init(
        difference: ListDifference, middle: ListDifference, source: Collection, target: Collection,
        sourceMiddle: ContiguousArray<Element>, targetMiddle: ContiguousArray<Element>, prefix: Int
    ) {
        self.difference = difference
        self.middle = middle
        self.source = source
        self.target = target
        self.sourceMiddle = sourceMiddle
        self.targetMiddle = targetMiddle
        self.prefix = prefix
    }

    /// The target's elements in `range`.
    @inlinable
    func targetElements(_ range: Range<Int>) -> Collection.SubSequence {
        target[target.index(target.startIndex, offsetBy: range.lowerBound)..<target.index(target.startIndex, offsetBy: range.upperBound)]
    }

    /// The target's element at `offset`.
    @inlinable
    func targetElement(at offset: Int) -> Element {
        target[target.index(target.startIndex, offsetBy: offset)]
    }

    /// Where the target's suffix (the end after the middle) starts.
    @inlinable
    var targetSuffixStart: Int {
        prefix + targetMiddle.count
    }

    /// The list after `stage`: the target's prefix, the middles' state after `stage`, the
    /// target's suffix (the ends are paired in place, so their elements are the target's). O(*n*).
    @inlinable
    func data(after stage: DiffStage) -> Collection {
        let targetCount = target.count
        var data = Collection()
        switch stage {
        case .elementUpdates:
            data.append(contentsOf: targetElements(0..<prefix))
            data.append(contentsOf: middle.updatedElements(ofSourceSection: 0, source: sourceMiddle, target: targetMiddle))
            data.append(contentsOf: targetElements(targetSuffixStart..<targetCount))
            return data
        case .deletions:
            data.append(contentsOf: targetElements(0..<prefix))
            data.append(contentsOf: middle.survivingElements(ofSourceSection: 0, target: targetMiddle))
            data.append(contentsOf: targetElements(targetSuffixStart..<targetCount))
            return data
        case .sectionInsertionsAndMoves, .elementInsertionsAndMoves, .sectionUpdates:
            return target
        }
    }

    /// The element at `index` after `stage`: O(1) except after deletions, O(middle) there.
    @inlinable
    func element(at index: Int, after stage: DiffStage) -> Element {
        switch stage {
        case .elementUpdates:
            // Source positions: the prefix, the source's middle, the suffix.
            guard index >= prefix else { return targetElement(at: index) }
            let offset = index - prefix
            guard offset < sourceMiddle.count else { return targetElement(at: targetSuffixStart + offset - sourceMiddle.count) }
            let targetIndex = middle.elements.sourceToTarget[offset]
            return targetIndex >= 0 ? targetMiddle[targetIndex] : sourceMiddle[offset]
        case .deletions:
            guard index >= prefix else { return targetElement(at: index) }
            let survivors = middle.survivingElements(ofSourceSection: 0, target: targetMiddle)
            let offset = index - prefix
            guard offset < survivors.count else { return targetElement(at: targetSuffixStart + offset - survivors.count) }
            return survivors[survivors.index(survivors.startIndex, offsetBy: offset)]
        case .sectionInsertionsAndMoves, .elementInsertionsAndMoves, .sectionUpdates:
            return targetElement(at: index)
        }
    }
}
