extension StagedChangeset where Collection: RangeReplaceableCollection, Collection.Element: DifferentiableSection {
    /// Replays the stages onto `source` using only their operations and the
    /// values of inserted and updated sections and elements — what a remote
    /// mirror does.
    ///
    /// - Returns: The target, when the stages are consistent.
    /// - Throws: ``BatchUpdateViolation`` for the first stage that can't be
    ///   applied to the list the previous stages left.
    @inlinable
    public func apply(to source: Collection) throws(BatchUpdateViolation) -> Collection {
        let result = try replay(from: sectionedState(source)) { changeset, layout, state throws(BatchUpdateViolation) in
            layout.apply(to: state, values: sectionedValues(changeset))
        }
        return Collection(zip(result.sections, result.items).lazy.map { Collection.Element(source: $0, elements: $1) })
    }

    /// Checks every stage against the batch-update rules, on the list the
    /// previous stages left (the first on `source`): deletions, updates and
    /// move sources name positions before the stage, insertions and move
    /// targets positions after it, none twice; the stage's `data` has as many
    /// sections and elements (in every section) as the operations leave, and
    /// every section and element where they put it.
    ///
    /// - Throws: ``BatchUpdateViolation`` for the first broken rule.
    @inlinable
    public func validate(source: Collection) throws(BatchUpdateViolation) {
        func identifiers(_ sections: Collection) -> BatchState<Collection.Element.DifferenceIdentifier, Collection.Element.Collection.Element.DifferenceIdentifier> {
            BatchState(
                sections: sections.map(\.differenceIdentifier),
                items: sections.map { $0.elements.map(\.differenceIdentifier) }
            )
        }
        _ = try replay(from: identifiers(source)) { changeset, layout, state throws(BatchUpdateViolation) in
            let after = identifiers(changeset.data)
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
    public func sequentialOperations(
        from source: Collection
    ) throws(BatchUpdateViolation) -> [SectionedListOperation<Collection.Element, Collection.Element.Collection.Element>] {
        var operations = [SectionedListOperation<Collection.Element, Collection.Element.Collection.Element>]()
        _ = try replay(from: sectionedState(source)) { changeset, layout, state throws(BatchUpdateViolation) in
            let values = sectionedValues(changeset)
            operations.append(contentsOf: layout.sequentialOperations(values: values))
            return layout.apply(to: state, values: values)
        }
        return operations
    }

    @inlinable
    func sectionedState(_ sections: Collection) -> BatchState<Collection.Element, Collection.Element.Collection.Element> {
        BatchState(sections: Array(sections), items: sections.map { Array($0.elements) })
    }

    @inlinable
    func sectionedValues(
        _ changeset: Changeset<Collection>
    ) -> BatchValues<Collection.Element, Collection.Element.Collection.Element> {
        BatchValues(
            section: { changeset.section(at: $0) },
            sectionItems: { Array(changeset.section(at: $0).elements) },
            item: { changeset.element(at: $0) }
        )
    }
}
