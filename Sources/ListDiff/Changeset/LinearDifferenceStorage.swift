/// The source, target and difference behind a linear staged changeset, from
/// which the state after any stage is built on demand.
@usableFromInline
final class LinearDifferenceStorage<Collection: RangeReplaceableCollection>: DifferenceStorage
where Collection.Element: Differentiable {
    @usableFromInline typealias Element = Collection.Element

    @usableFromInline let difference: ListDifference
    @usableFromInline let source: ContiguousArray<Element>
    @usableFromInline let target: ContiguousArray<Element>

    @inlinable
    init(difference: ListDifference, source: ContiguousArray<Element>, target: ContiguousArray<Element>) {
        self.difference = difference
        self.source = source
        self.target = target
    }

    /// The list after `stage`. O(*n*).
    @inlinable
    func data(after stage: DiffStage) -> Collection {
        switch stage {
        case .elementUpdates:
            return Collection(difference.updatedElements(ofSourceSection: 0, source: source, target: target))
        case .deletions:
            return Collection(difference.survivingElements(ofSourceSection: 0, target: target))
        case .sectionInsertionsAndMoves, .elementInsertionsAndMoves, .sectionUpdates:
            return Collection(target)
        }
    }

    /// The element at `index` after `stage`: O(1) except after deletions, O(*n*) there.
    @inlinable
    func element(at index: Int, after stage: DiffStage) -> Element {
        switch stage {
        case .elementUpdates:
            let targetIndex = difference.elements.sourceToTarget[index]
            return targetIndex >= 0 ? target[targetIndex] : source[index]
        case .deletions:
            let survivors = difference.survivingElements(ofSourceSection: 0, target: target)
            return survivors[survivors.index(survivors.startIndex, offsetBy: index)]
        case .sectionInsertionsAndMoves, .elementInsertionsAndMoves, .sectionUpdates:
            return target[index]
        }
    }
}
