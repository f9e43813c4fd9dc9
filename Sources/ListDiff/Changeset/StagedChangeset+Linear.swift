extension StagedChangeset where Collection: RangeReplaceableCollection, Collection.Element: Differentiable {
    /// Computes the stages that turn `source` into `target`.
    ///
    /// At most three stages, as in DifferenceKit: element updates (source
    /// indices), element deletions (source indices), element inserts (target
    /// indices) with moves (from the index after the deletions to the target
    /// index). Moves are minimal. O(*n*) expected, plus O(*k* log *k*) for the
    /// *k* elements that change order; no copy of the list per stage.
    @inlinable
    public init(source: Collection, target: Collection) {
        self.init(source: source, target: target, section: 0)
    }

    /// Computes the stages that turn `source` into `target`, reporting element
    /// paths in section `section`.
    @inlinable
    public init(source: Collection, target: Collection, section: Int) {
        self.init(source: source, target: target, section: section, knownEqualEnds: .nothing)
    }

    /// Computes the stages that turn `source` into `target`, reporting element paths in section
    /// `section`, as ``init(source:target:section:)`` does, sparing the work of finding what
    /// `knownEqualEnds` says (it must be true: debug builds check it) — with unique identifiers,
    /// a table over the source when the lists are mostly in the same order.
    @inlinable
    public init(source: Collection, target: Collection, section: Int, knownEqualEnds: KnownEqualEnds) {
        let sourceElements = ContiguousArray(source)
        let targetElements = ContiguousArray(target)
        var difference = ListDifference(
            source: sourceElements,
            sourceBounds: ListDifference.linearBounds(count: sourceElements.count),
            target: targetElements,
            targetBounds: ListDifference.linearBounds(count: targetElements.count),
            sections: .singleSection,
            sectionUpdated: [],
            known: knownEqualEnds
        )
        if section != 0 {
            difference.placeElements(inSection: section)
        }
        let storage = LinearDifferenceStorage<Collection>(
            difference: difference,
            source: sourceElements,
            target: targetElements
        )
        self.init(storage: storage, target: target)
        // Paths name section `section`; the sections before it are empty.
        if section >= 0 {
            self._checkInvariants(
                sourceSectionSizes: [Int](repeating: 0, count: section) + [sourceElements.count],
                targetSectionSizes: [Int](repeating: 0, count: section) + [targetElements.count])
        }
    }
}

extension Changeset where Collection: RangeReplaceableCollection, Collection.Element: Differentiable {
    /// The element at `index` of this stage's ``data``, without building the
    /// whole collection when the changeset was computed by ListDiff: O(1) for
    /// updated and inserted elements.
    @inlinable
    public func element(at index: Int) -> Collection.Element {
        if let (storage, stage) = deferredStorage(as: LinearDifferenceStorage<Collection>.self) {
            return storage.element(at: index, after: stage)
        }
        if let (storage, stage) = deferredStorage(as: MiddleDifferenceStorage<Collection>.self) {
            return storage.element(at: index, after: stage)
        }
        return dataValue(at: index)
    }
}
