/// Where the values that a stage brings come from: the state after it.
@usableFromInline
struct BatchValues<SectionValue, Item> {
    /// The section at an index after the stage (inserted or updated sections).
    @usableFromInline let section: (Int) -> SectionValue
    /// The elements of an inserted section, by its index after the stage.
    @usableFromInline let sectionItems: (Int) -> [Item]
    /// The element at a path after the stage (inserted or updated elements).
    @usableFromInline let item: (ElementPath) -> Item
    /// Whether an updated element or section takes its value from the state
    /// after the stage (`true`, to apply a stage) or keeps its old one
    /// (`false`, to check identities, which an update never changes).
    @usableFromInline let updatesBringValues: Bool

    @inlinable
    init(
        section: @escaping (Int) -> SectionValue,
        sectionItems: @escaping (Int) -> [Item],
        item: @escaping (ElementPath) -> Item,
        updatesBringValues: Bool = true
    ) {
        self.section = section
        self.sectionItems = sectionItems
        self.item = item
        self.updatesBringValues = updatesBringValues
    }
}
