/// Where every section and element of a stage comes from and goes to; made
/// by ``BatchUpdate/plan(sectionSizes:)``, which has checked the rules.
@usableFromInline
struct BatchLayout {
    /// What a stage does to a section or an element of the state before it.
    @usableFromInline
    enum Fate: UInt8 {
        case kept, updated, deleted, moved

        @inlinable
        var staysInPlace: Bool {
            self == .kept || self == .updated
        }
    }

    /// A place after the stage not yet given a section or an element.
    @usableFromInline static let unassigned = -2
    /// A place after the stage filled by an insertion.
    @usableFromInline static let inserted = -1

    @usableFromInline let update: BatchUpdate
    /// What happens to each section before the stage.
    @usableFromInline let sectionFates: [Fate]
    /// For each section after the stage: the section before it that it is, or ``inserted``.
    @usableFromInline let sectionSources: [Int]
    /// For each section before the stage: its index after it, or -1 when deleted.
    @usableFromInline let sectionDestinations: [Int]
    /// What happens to each element before the stage, section by section.
    @usableFromInline let elementFates: [[Fate]]
    /// For each place after the stage, section by section, in sections that
    /// are not inserted: ``inserted``, the offset of the move that lands
    /// there, or ``unassigned`` for the next element kept in place.
    @usableFromInline let slots: [[Int]]
}

extension BatchLayout {
    /// The state after the stage. O(*n*).
    @inlinable
    func apply<SectionValue, Item>(
        to state: BatchState<SectionValue, Item>,
        values: BatchValues<SectionValue, Item>
    ) -> BatchState<SectionValue, Item> {
        var result = BatchState<SectionValue, Item>(sections: [], items: [])
        result.sections.reserveCapacity(sectionSources.count)
        result.items.reserveCapacity(sectionSources.count)
        for section in sectionSources.indices {
            let source = sectionSources[section]
            guard source != BatchLayout.inserted else {
                result.sections.append(values.section(section))
                result.items.append(values.sectionItems(section))
                continue
            }
            result.sections.append(
                sectionFates[source] == .updated && values.updatesBringValues
                    ? values.section(section)
                    : state.sections[source]
            )

            var items = [Item]()
            items.reserveCapacity(slots[section].count)
            var next = 0
            for (element, slot) in slots[section].enumerated() {
                switch slot {
                case BatchLayout.inserted:
                    items.append(values.item(ElementPath(element: element, section: section)))
                case BatchLayout.unassigned:
                    while !elementFates[source][next].staysInPlace { next += 1 }
                    items.append(
                        elementFates[source][next] == .updated && values.updatesBringValues
                            ? values.item(ElementPath(element: element, section: section))
                            : state.items[source][next]
                    )
                    next += 1
                default:
                    let origin = update.elementMoved[slot].source
                    items.append(state.items[origin.section][origin.element])
                }
            }
            result.items.append(items)
        }
        return result
    }
}
