extension StagedChangeset {
    /// Plans every stage in turn on the state the previous one left, starting
    /// from `initial`; `next` turns a stage's plan into the following state.
    @inlinable
    func replay<SectionValue, Item>(
        from initial: BatchState<SectionValue, Item>,
        _ next: (Changeset<Collection>, BatchLayout, BatchState<SectionValue, Item>) throws(BatchUpdateViolation)
            -> BatchState<SectionValue, Item>
    ) throws(BatchUpdateViolation) -> BatchState<SectionValue, Item> {
        var state = initial
        for (offset, changeset) in enumerated() {
            let layout = try BatchUpdate(changeset, stage: offset).plan(sectionSizes: state.sectionSizes)
            state = try next(changeset, layout, state)
        }
        return state
    }
}
