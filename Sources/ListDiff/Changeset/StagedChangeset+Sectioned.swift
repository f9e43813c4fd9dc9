extension StagedChangeset where Collection: RangeReplaceableCollection, Collection.Element: DifferentiableSection {
    /// Computes the stages that turn the sections `source` into `target`.
    ///
    /// At most five stages, as in DifferenceKit: element updates (source
    /// paths); section and element deletions (source space; elements of a
    /// deleted section are not listed); section inserts (target indices) and
    /// moves (from the index after the deletions); element inserts (target
    /// paths) and moves (from the path after the section stage, across
    /// sections too); section updates (target indices). Moves are minimal.
    /// O(*n*) expected, plus O(*k* log *k*) for the *k* elements and sections
    /// that change order; no copy of the list per stage.
    @inlinable
    public init(source: Collection, target: Collection) {
        self.init(source: source, target: target, knownEqualEnds: .nothing)
    }

    /// Computes the stages that turn the sections `source` into `target`, as
    /// ``init(source:target:)`` does, sparing the work of finding what `knownEqualEnds` says
    /// of the elements of all sections in order (it must be true: debug builds check it). With
    /// one section on each side, elements at the known ends cost nothing: no comparison, no
    /// position stored (the matching keeps positions for the elements between the ends only),
    /// so a change in a long list costs time and memory for the changed elements.
    @inlinable
    public init(source: Collection, target: Collection, knownEqualEnds: KnownEqualEnds) {
        typealias Section = Collection.Element
        typealias Element = Section.Collection.Element

        let sourceSections = ContiguousArray(source)
        let targetSections = ContiguousArray(target)
        func flatten(_ sections: ContiguousArray<Section>) -> (ContiguousArray<Element>, [Int]) {
            // One section (every linear list the daemon diffs): an Array's buffer is shared, not
            // copied element by element — a million reference-counted elements are a million
            // retains now and a million releases when the changeset goes.
            if sections.count == 1 {
                let elements = ContiguousArray(sections[0].elements)
                return (elements, [0, elements.count])
            }
            var elements = ContiguousArray<Element>()
            var bounds = [0]
            bounds.reserveCapacity(sections.count + 1)
            for section in sections {
                elements.append(contentsOf: section.elements)
                bounds.append(elements.count)
            }
            return (elements, bounds)
        }
        let (sourceElements, sourceBounds) = flatten(sourceSections)
        let (targetElements, targetBounds) = flatten(targetSections)

        let sections = IdentifierMatching(source: sourceSections, target: targetSections)
        var sectionUpdated: [Int] = []
        for targetSection in targetSections.indices {
            let sourceSection = sections.targetToSource[targetSection]
            if sourceSection >= 0 && !targetSections[targetSection].isContentEqual(to: sourceSections[sourceSection]) {
                sectionUpdated.append(targetSection)
            }
        }

        let difference = ListDifference(
            source: sourceElements,
            sourceBounds: sourceBounds,
            target: targetElements,
            targetBounds: targetBounds,
            sections: sections,
            sectionUpdated: sectionUpdated,
            known: knownEqualEnds
        )
        let storage = SectionedDifferenceStorage<Collection>(
            difference: difference,
            sourceSections: sourceSections,
            targetSections: targetSections,
            source: sourceElements,
            target: targetElements
        )
        self.init(storage: storage, target: target)
        self._checkInvariants(
            sourceSectionSizes: zip(sourceBounds, sourceBounds.dropFirst()).map { $1 - $0 },
            targetSectionSizes: zip(targetBounds, targetBounds.dropFirst()).map { $1 - $0 })
    }
}

extension Changeset where Collection: RangeReplaceableCollection, Collection.Element: DifferentiableSection {
    /// The section at `index` of this stage's ``data``, without building the
    /// whole collection when the changeset was computed by ListDiff.
    @inlinable
    public func section(at index: Int) -> Collection.Element {
        if let (storage, stage) = deferredStorage(as: SectionedDifferenceStorage<Collection>.self) {
            return storage.section(at: index, after: stage)
        }
        return dataValue(at: index)
    }

    /// The element at `path` of this stage's ``data``, without building the
    /// whole collection when the changeset was computed by ListDiff: O(1) for
    /// updated and inserted elements.
    @inlinable
    public func element(at path: ElementPath) -> Collection.Element.Collection.Element {
        if let (storage, stage) = deferredStorage(as: SectionedDifferenceStorage<Collection>.self) {
            return storage.element(at: path, after: stage)
        }
        let elements = section(at: path.section).elements
        return elements[elements.index(elements.startIndex, offsetBy: path.element)]
    }
}
