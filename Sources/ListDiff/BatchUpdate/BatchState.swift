/// A sectioned list as a batch update sees it: section values and, apart,
/// the elements of each section.
@usableFromInline
struct BatchState<SectionValue, Item> {
    @usableFromInline var sections: [SectionValue]
    @usableFromInline var items: [[Item]]

    @inlinable
    init(sections: [SectionValue], items: [[Item]]) {
        self.sections = sections
        self.items = items
    }

    @inlinable
    var sectionSizes: [Int] {
        items.map(\.count)
    }
}
