extension StagedChangeset where Collection: RangeReplaceableCollection, Collection.Element: Differentiable {
    /// Replays the stages onto `source` using only their operations and the
    /// values of inserted and updated elements — what a remote mirror does.
    ///
    /// - Returns: The target, when the stages are consistent.
    /// - Throws: ``BatchUpdateViolation`` for the first stage that can't be
    ///   applied to the list the previous stages left.
    @inlinable
    public func apply(to source: Collection) throws(BatchUpdateViolation) -> Collection {
        let result = try replay(from: linearState(source)) { changeset, layout, state throws(BatchUpdateViolation) in
            try linearState(layout.apply(to: state, values: linearValues(changeset)), stage: layout.update.stage)
        }
        return Collection(result.items[0])
    }

    /// Checks every stage against the batch-update rules, on the list the
    /// previous stages left (the first on `source`): deletions, updates and
    /// move sources name positions before the stage, insertions and move
    /// targets positions after it, none twice; the stage's `data` has as many
    /// elements as the operations leave, and every element where they put it.
    ///
    /// - Throws: ``BatchUpdateViolation`` for the first broken rule.
    @inlinable
    public func validate(source: Collection) throws(BatchUpdateViolation) {
        _ = try replay(from: linearState(source.map(\.differenceIdentifier))) { changeset, layout, state throws(BatchUpdateViolation) in
            let after = linearState(changeset.data.map(\.differenceIdentifier))
            try layout.check(before: state, after: after)
            return after
        }
    }

    /// The same change as one ordered list of single operations, each at
    /// indices valid when it is made, for consumers that apply changes one at
    /// a time: one operation per change of the stages.
    ///
    /// - Throws: ``BatchUpdateViolation`` when a stage can't be applied.
    @inlinable
    public func sequentialOperations(from source: Collection) throws(BatchUpdateViolation) -> [ListOperation<Collection.Element>] {
        var operations = [ListOperation<Collection.Element>]()
        _ = try replay(from: linearState(source)) { changeset, layout, state throws(BatchUpdateViolation) in
            let values = linearValues(changeset)
            for operation in layout.sequentialOperations(values: values) {
                switch operation {
                case .deleteElement(let path): operations.append(.delete(at: path.element))
                case .insertElement(let element, let path): operations.append(.insert(element, at: path.element))
                case .moveElement(let from, let to): operations.append(.move(from: from.element, to: to.element))
                case .updateElement(let element, let path): operations.append(.update(element, at: path.element))
                case .deleteSection, .insertSection, .moveSection, .updateSection: break
                }
            }
            return try linearState(layout.apply(to: state, values: values), stage: layout.update.stage)
        }
        return operations
    }

    @inlinable
    func linearState<Item, Items: Swift.Collection<Item>>(_ items: Items) -> BatchState<Int, Item> {
        BatchState(sections: [0], items: [Array(items)])
    }

    /// `state`, when it is still a linear list.
    @inlinable
    func linearState<Item>(_ state: BatchState<Int, Item>, stage: Int) throws(BatchUpdateViolation) -> BatchState<Int, Item> {
        guard state.sections.count == 1 else {
            throw BatchUpdateViolation(stage: stage, kind: .sectionCountMismatch(expected: state.sections.count, actual: 1))
        }
        return state
    }

    @inlinable
    func linearValues(_ changeset: Changeset<Collection>) -> BatchValues<Int, Collection.Element> {
        BatchValues(section: { $0 }, sectionItems: { _ in [] }, item: { changeset.element(at: $0.element) })
    }
}
