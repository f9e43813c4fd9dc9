extension BatchLayout {
    /// Checks that `after`, the state a stage's data shows, is the state the
    /// stage's operations make from `before`: same numbers of sections and
    /// elements, and every section and element where the operations put it.
    @inlinable
    func check<SectionIdentifier: Equatable, Identifier: Equatable>(
        before: BatchState<SectionIdentifier, Identifier>,
        after: BatchState<SectionIdentifier, Identifier>
    ) throws(BatchUpdateViolation) {
        func violation(_ kind: BatchUpdateViolation.Kind) -> BatchUpdateViolation {
            BatchUpdateViolation(stage: update.stage, kind: kind)
        }
        guard sectionSources.count == after.sections.count else {
            throw violation(.sectionCountMismatch(expected: sectionSources.count, actual: after.sections.count))
        }
        for section in slots.indices where sectionSources[section] != BatchLayout.inserted {
            guard slots[section].count == after.items[section].count else {
                throw violation(.elementCountMismatch(
                    section: section,
                    expected: slots[section].count,
                    actual: after.items[section].count
                ))
            }
        }
        let made = apply(to: before, values: BatchValues(
            section: { after.sections[$0] },
            sectionItems: { after.items[$0] },
            item: { after.items[$0.section][$0.element] },
            updatesBringValues: false
        ))
        for section in made.sections.indices {
            guard made.sections[section] == after.sections[section] else {
                throw violation(.sectionMismatch(section: section))
            }
            for element in made.items[section].indices where made.items[section][element] != after.items[section][element] {
                throw violation(.elementMismatch(path: ElementPath(element: element, section: section)))
            }
        }
    }
}
