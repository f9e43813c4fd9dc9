/// The source, target and difference behind a sectioned staged changeset,
/// from which the state after any stage is built on demand.
@usableFromInline
final class SectionedDifferenceStorage<Collection: RangeReplaceableCollection>: DifferenceStorage
where Collection.Element: DifferentiableSection {
    @usableFromInline typealias Section = Collection.Element
    @usableFromInline typealias Element = Section.Collection.Element

    @usableFromInline let difference: ListDifference
    @usableFromInline let sourceSections: ContiguousArray<Section>
    @usableFromInline let targetSections: ContiguousArray<Section>
    @usableFromInline let source: ContiguousArray<Element>
    @usableFromInline let target: ContiguousArray<Element>

    @inlinable
    init(
        difference: ListDifference,
        sourceSections: ContiguousArray<Section>,
        targetSections: ContiguousArray<Section>,
        source: ContiguousArray<Element>,
        target: ContiguousArray<Element>
    ) {
        self.difference = difference
        self.sourceSections = sourceSections
        self.targetSections = targetSections
        self.source = source
        self.target = target
    }

    /// The list after `stage`. O(*n*).
    @inlinable
    func data(after stage: DiffStage) -> Collection {
        switch stage {
        case .elementUpdates:
            return Collection(sourceSections.indices.lazy.map { section in
                Section(
                    source: self.sourceSections[section],
                    elements: self.difference.updatedElements(ofSourceSection: section, source: self.source, target: self.target)
                )
            })
        case .deletions:
            return Collection(sourceSections.indices.lazy
                .filter { self.difference.sections.sourceToTarget[$0] >= 0 }
                .map { section in
                    Section(
                        source: self.sourceSections[section],
                        elements: self.difference.survivingElements(ofSourceSection: section, target: self.target)
                    )
                })
        case .sectionInsertionsAndMoves, .elementInsertionsAndMoves, .sectionUpdates:
            return Collection(targetSections.indices.lazy.map { self.section(at: $0, after: stage) })
        }
    }

    /// The section at `index` after `stage`. O(1) for inserted sections and
    /// after the section updates, O(section size) otherwise.
    @inlinable
    func section(at index: Int, after stage: DiffStage) -> Section {
        switch stage {
        case .elementUpdates:
            return Section(
                source: sourceSections[index],
                elements: difference.updatedElements(ofSourceSection: index, source: source, target: target)
            )
        case .deletions:
            let kept = sourceSections.indices.lazy.filter { self.difference.sections.sourceToTarget[$0] >= 0 }
            guard let sourceSection = kept.dropFirst(index).first else {
                preconditionFailure("Section index \(index) out of range after the deletions")
            }
            return Section(
                source: sourceSections[sourceSection],
                elements: difference.survivingElements(ofSourceSection: sourceSection, target: target)
            )
        case .sectionInsertionsAndMoves:
            let sourceSection = difference.sections.targetToSource[index]
            guard sourceSection >= 0 else { return targetSections[index] }
            return Section(
                source: sourceSections[sourceSection],
                elements: difference.survivingElements(ofSourceSection: sourceSection, target: target)
            )
        case .elementInsertionsAndMoves:
            let sourceSection = difference.sections.targetToSource[index]
            guard sourceSection >= 0 else { return targetSections[index] }
            return Section(
                source: sourceSections[sourceSection],
                elements: difference.targetElements(ofTargetSection: index, target: target)
            )
        case .sectionUpdates:
            return targetSections[index]
        }
    }

    /// The element at `path` after `stage`: O(1) after the element updates and
    /// once the element inserts are done, O(section size) in between.
    @inlinable
    func element(at path: ElementPath, after stage: DiffStage) -> Element {
        switch stage {
        case .elementUpdates:
            let sourceIndex = difference.sourceBounds[path.section] + path.element
            let targetIndex = difference.elements.sourceToTarget[sourceIndex]
            return targetIndex >= 0 ? target[targetIndex] : source[sourceIndex]
        case .elementInsertionsAndMoves, .sectionUpdates:
            return target[difference.targetBounds[path.section] + path.element]
        case .deletions, .sectionInsertionsAndMoves:
            let elements = section(at: path.section, after: stage).elements
            return elements[elements.index(elements.startIndex, offsetBy: path.element)]
        }
    }
}
