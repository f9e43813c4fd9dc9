extension StagedChangeset where Collection: RangeReplaceableCollection, Collection.Element: Differentiable {
    /// Computes the stages that turn `source` into `target`, exactly as
    /// ``init(source:target:section:knownEqualEnds:)`` does, copying only the elements between
    /// the ends `knownEqualEnds` names: the changeset's last data is `target` itself, and the
    /// others are built from it on demand.
    ///
    /// Issue 19: a version of a list of a million records that a one-row edit made shares its
    /// records with the version before it (runs of the same storage); copying both whole into
    /// the engine's arrays would cost two records arrays again. With unique identifiers, no
    /// element between the ends matches one at the ends (those pair with each other in place),
    /// so the middles' difference, with its paths moved past the prefix, is the whole lists'.
    /// Without unique identifiers, or with no end known, both lists are copied whole as
    /// ``init(source:target:section:knownEqualEnds:)`` copies them.
    ///
    /// - Complexity: the copy and the diff of the middles, plus O(log) lookups at the ends.
    @inlinable
    public init(middlesOf source: Collection, to target: Collection, section: Int, knownEqualEnds known: KnownEqualEnds) {
        guard known.identifiersAreUnique, known.prefix + known.suffix > 0 else {
            self.init(source: source, target: target, section: section, knownEqualEnds: known)
            return
        }
        let sourceCount = source.count
        let targetCount = target.count
        precondition(known.prefix + known.suffix <= Swift.min(sourceCount, targetCount), "KnownEqualEnds: the ends overlap")
        func middle(of list: Collection, count: Int) -> ContiguousArray<Collection.Element> {
            ContiguousArray(list[list.index(list.startIndex, offsetBy: known.prefix)..<list.index(list.startIndex, offsetBy: count - known.suffix)])
        }
        let sourceMiddle = middle(of: source, count: sourceCount)
        let targetMiddle = middle(of: target, count: targetCount)
        #if DEBUG
        known._check(source: ContiguousArray(source), target: ContiguousArray(target))
        #endif
        let middleDifference = ListDifference(
            source: sourceMiddle,
            sourceBounds: ListDifference.linearBounds(count: sourceMiddle.count),
            target: targetMiddle,
            targetBounds: ListDifference.linearBounds(count: targetMiddle.count),
            sections: .singleSection,
            sectionUpdated: [],
            known: KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true)
        )
        var difference = middleDifference
        difference.placeElements(inSection: section, after: known.prefix)
        let storage = MiddleDifferenceStorage<Collection>(
            difference: difference, middle: middleDifference, source: source, target: target,
            sourceMiddle: sourceMiddle, targetMiddle: targetMiddle, prefix: known.prefix)
        self.init(storage: storage, target: target)
        if section >= 0 {
            self._checkInvariants(
                sourceSectionSizes: [Int](repeating: 0, count: section) + [sourceCount],
                targetSectionSizes: [Int](repeating: 0, count: section) + [targetCount])
        }
    }
}
