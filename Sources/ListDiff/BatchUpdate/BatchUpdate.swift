/// The operations of one stage, read as UIKit reads a `performBatchUpdates`
/// block: deletions, updates and move sources name the state before it;
/// insertions and move targets name the state after it; everything not
/// named keeps its relative order and fills the remaining places.
///
/// ``check(sectionSizes:)`` checks the rules; ``plan(sectionSizes:)`` checks
/// them and works out where everything goes from the sizes of the state
/// before the stage alone; ``BatchLayout``
/// then applies the stage to values (``BatchLayout/apply(to:values:)``), or
/// spells it as single operations (``BatchLayout/sequentialOperations(values:)``).
/// Validation, `apply` and sequential operations all go through here, and
/// so do the stages a client applies to its mirror (`package`: not part of
/// ListDiff's public API).
@usableFromInline
package struct BatchUpdate {
    @usableFromInline let stage: Int
    @usableFromInline let sectionDeleted: [Int]
    @usableFromInline let sectionInserted: [Int]
    @usableFromInline let sectionUpdated: [Int]
    @usableFromInline let sectionMoved: [(source: Int, target: Int)]
    @usableFromInline let elementDeleted: [ElementPath]
    @usableFromInline let elementInserted: [ElementPath]
    @usableFromInline let elementUpdated: [ElementPath]
    @usableFromInline let elementMoved: [(source: ElementPath, target: ElementPath)]

    /// The operations of `changeset`, the stage at offset `stage`.
    @inlinable
    init<Collection>(_ changeset: Changeset<Collection>, stage: Int) {
        self.init(
            stage: stage, sectionDeleted: changeset.sectionDeleted, sectionInserted: changeset.sectionInserted,
            sectionUpdated: changeset.sectionUpdated, sectionMoved: changeset.sectionMoved,
            elementDeleted: changeset.elementDeleted, elementInserted: changeset.elementInserted,
            elementUpdated: changeset.elementUpdated, elementMoved: changeset.elementMoved)
    }

    /// The operations of a stage given as lists, the stage at offset `stage`: for stages that
    /// are not a ``Changeset`` (a client's decoded wire stages), which are checked against the
    /// same rules with ``check(sectionSizes:)``.
    @usableFromInline
    package init(
        stage: Int, sectionDeleted: [Int], sectionInserted: [Int], sectionUpdated: [Int],
        sectionMoved: [(source: Int, target: Int)], elementDeleted: [ElementPath], elementInserted: [ElementPath],
        elementUpdated: [ElementPath], elementMoved: [(source: ElementPath, target: ElementPath)]
    ) {
        self.stage = stage
        self.sectionDeleted = sectionDeleted
        self.sectionInserted = sectionInserted
        self.sectionUpdated = sectionUpdated
        self.sectionMoved = sectionMoved
        self.elementDeleted = elementDeleted
        self.elementInserted = elementInserted
        self.elementUpdated = elementUpdated
        self.elementMoved = elementMoved
    }

    /// What ``check(sectionSizes:)`` found: where every section goes, and how many elements
    /// each section loses and gains.
    @usableFromInline
    package struct Checked {
        /// What happens to each section before the stage.
        @usableFromInline var sectionFates: [BatchLayout.Fate]
        /// For each section after the stage: the section before it that it is, or ``BatchLayout/inserted``.
        @usableFromInline var sectionSources: [Int]
        /// For each section before the stage: its index after it, or -1 when deleted.
        @usableFromInline var sectionDestinations: [Int]
        /// The elements each section before the stage loses (deleted or moved away), by section.
        @usableFromInline var removedCounts: [Int: Int]
        /// The elements each section after the stage gains (inserted or moved in), by section.
        @usableFromInline var addedCounts: [Int: Int]

        /// The number of sections after the stage.
        package var sectionCountAfter: Int { sectionSources.count }

        /// The index before the stage of the section at `index` after it; `nil` for a section
        /// the stage inserts.
        package func source(ofSection index: Int) -> Int? {
            sectionSources[index] == BatchLayout.inserted ? nil : sectionSources[index]
        }
    }

    /// Checks the stage against the batch-update rules — the one rule set of ListDiff's
    /// `validate`, `apply` and sequential operations, and of a client applying decoded stages to
    /// its mirror. Looks only at the sections and elements the stage names: O(operations +
    /// sections), whatever the sizes of the sections.
    ///
    /// - Parameter sectionSizes: The number of elements of each section before the stage.
    @usableFromInline
    package func check(sectionSizes: [Int]) throws(BatchUpdateViolation) -> Checked {
        func violation(_ kind: BatchUpdateViolation.Kind) -> BatchUpdateViolation {
            BatchUpdateViolation(stage: stage, kind: kind)
        }
        let beforeCount = sectionSizes.count

        // Sections, before the stage.
        var sectionFates = [BatchLayout.Fate](repeating: .kept, count: beforeCount)
        func claim(section: Int, _ operation: BatchUpdateViolation.Operation, as fate: BatchLayout.Fate) throws(BatchUpdateViolation) {
            guard section >= 0 && section < beforeCount else {
                throw violation(.sectionOutOfRange(operation, section: section, count: beforeCount))
            }
            guard sectionFates[section] == .kept else {
                throw violation(.sectionUsedTwice(operation, section: section))
            }
            sectionFates[section] = fate
        }
        for section in sectionDeleted { try claim(section: section, .delete, as: .deleted) }
        for move in sectionMoved { try claim(section: move.source, .moveFrom, as: .moved) }
        for section in sectionUpdated { try claim(section: section, .update, as: .updated) }

        // Sections, after the stage.
        let afterCount = beforeCount - sectionDeleted.count + sectionInserted.count
        var sectionSources = [Int](repeating: BatchLayout.unassigned, count: afterCount)
        func place(section: Int, from source: Int, _ operation: BatchUpdateViolation.Operation) throws(BatchUpdateViolation) {
            guard section >= 0 && section < afterCount else {
                throw violation(.sectionOutOfRange(operation, section: section, count: afterCount))
            }
            guard sectionSources[section] == BatchLayout.unassigned else {
                throw violation(.sectionUsedTwice(operation, section: section))
            }
            sectionSources[section] = source
        }
        for section in sectionInserted { try place(section: section, from: BatchLayout.inserted, .insert) }
        for move in sectionMoved { try place(section: move.target, from: move.source, .moveTo) }
        var sectionDestinations = [Int](repeating: -1, count: beforeCount)
        for move in sectionMoved { sectionDestinations[move.source] = move.target }
        // As many places are left as sections kept in place: each fills the next one.
        var nextPlace = 0
        for section in 0..<beforeCount where sectionFates[section].staysInPlace {
            while sectionSources[nextPlace] != BatchLayout.unassigned { nextPlace += 1 }
            sectionSources[nextPlace] = section
            sectionDestinations[section] = nextPlace
        }

        // Elements, before the stage: only those named are looked at.
        var claimed = Set<ElementPath>()
        var removedCounts: [Int: Int] = [:]
        func claim(element path: ElementPath, _ operation: BatchUpdateViolation.Operation, as fate: BatchLayout.Fate) throws(BatchUpdateViolation) {
            guard path.section >= 0 && path.section < beforeCount else {
                throw violation(.sectionOutOfRange(operation, section: path.section, count: beforeCount))
            }
            guard sectionFates[path.section] != .deleted else {
                throw violation(.elementInDeletedSection(operation, path: path))
            }
            guard path.element >= 0 && path.element < sectionSizes[path.section] else {
                throw violation(.elementOutOfRange(operation, path: path, count: sectionSizes[path.section]))
            }
            guard claimed.insert(path).inserted else {
                throw violation(.elementUsedTwice(operation, path: path))
            }
            if !fate.staysInPlace { removedCounts[path.section, default: 0] += 1 }
        }
        for path in elementDeleted { try claim(element: path, .delete, as: .deleted) }
        for move in elementMoved { try claim(element: move.source, .moveFrom, as: .moved) }
        for path in elementUpdated { try claim(element: path, .update, as: .updated) }

        // Elements, after the stage: first how many each section holds.
        var addedCounts: [Int: Int] = [:]
        func count(into path: ElementPath, _ operation: BatchUpdateViolation.Operation) throws(BatchUpdateViolation) {
            guard path.section >= 0 && path.section < afterCount else {
                throw violation(.sectionOutOfRange(operation, section: path.section, count: afterCount))
            }
            guard sectionSources[path.section] != BatchLayout.inserted else {
                throw violation(.elementInInsertedSection(operation, path: path))
            }
            addedCounts[path.section, default: 0] += 1
        }
        for path in elementInserted { try count(into: path, .insert) }
        for move in elementMoved { try count(into: move.target, .moveTo) }

        var placed = Set<ElementPath>()
        func place(element path: ElementPath, _ operation: BatchUpdateViolation.Operation) throws(BatchUpdateViolation) {
            // `count(into:)` has checked the section: one the stage keeps or moves.
            let source = sectionSources[path.section]
            let size = sectionSizes[source] - removedCounts[source, default: 0] + addedCounts[path.section, default: 0]
            guard path.element >= 0 && path.element < size else {
                throw violation(.elementOutOfRange(operation, path: path, count: size))
            }
            guard placed.insert(path).inserted else {
                throw violation(.elementUsedTwice(operation, path: path))
            }
        }
        for path in elementInserted { try place(element: path, .insert) }
        for move in elementMoved { try place(element: move.target, .moveTo) }

        return Checked(
            sectionFates: sectionFates, sectionSources: sectionSources, sectionDestinations: sectionDestinations,
            removedCounts: removedCounts, addedCounts: addedCounts)
    }

    /// Checks the stage against the batch-update rules (``check(sectionSizes:)``) and places
    /// every section and element of the state after it. O(*n*).
    ///
    /// - Parameter sectionSizes: The number of elements of each section before the stage.
    @usableFromInline
    func plan(sectionSizes: [Int]) throws(BatchUpdateViolation) -> BatchLayout {
        let checked = try check(sectionSizes: sectionSizes)

        var elementFates = sectionSizes.map { [BatchLayout.Fate](repeating: .kept, count: $0) }
        for path in elementDeleted { elementFates[path.section][path.element] = .deleted }
        for move in elementMoved { elementFates[move.source.section][move.source.element] = .moved }
        for path in elementUpdated { elementFates[path.section][path.element] = .updated }

        var slots = [[Int]]()
        slots.reserveCapacity(checked.sectionSources.count)
        for (section, source) in checked.sectionSources.enumerated() {
            let size = source == BatchLayout.inserted
                ? 0
                : sectionSizes[source] - checked.removedCounts[source, default: 0] + checked.addedCounts[section, default: 0]
            slots.append([Int](repeating: BatchLayout.unassigned, count: size))
        }
        for path in elementInserted { slots[path.section][path.element] = BatchLayout.inserted }
        for (move, element) in elementMoved.enumerated() { slots[element.target.section][element.target.element] = move }

        return BatchLayout(
            update: self,
            sectionFates: checked.sectionFates,
            sectionSources: checked.sectionSources,
            sectionDestinations: checked.sectionDestinations,
            elementFates: elementFates,
            slots: slots
        )
    }
}
