import ListDiff
import PropertyBased
import Testing

/// For all inputs: the changeset replays to the target, every stage is a
/// valid batch update whose data is the replayed state, moves are minimal,
/// and the sequential operations lead to the target too.
@Suite struct StagedChangesetPropertyTests {
    static let cases = 10_000

    @Test func linearChangesetsAreCorrectAndMinimal() async {
        await propertyCheck(count: Self.cases, input: Generators.linear) { source, script in
            ChangesetChecks.linear.check(from: source, to: source.edited(by: script))
        }
    }

    @Test func sectionedChangesetsAreCorrectAndMinimal() async {
        await propertyCheck(count: Self.cases, input: Generators.sectioned) { source, script in
            ChangesetChecks.sectioned.check(from: source, to: source.edited(by: script))
        }
    }

    @Test func unrelatedListsAreCorrectAndMinimal() async {
        let lists = Generators.section.array(of: 0...5)
        await propertyCheck(count: Self.cases, input: zip(lists, lists)) { source, target in
            ChangesetChecks.sectioned.check(from: source, to: target)
        }
    }

    /// Dropping any structural operation of a minimal changeset breaks it:
    /// the validator must notice.
    @Test func validatorRejectsAChangesetMissingAnOperation() async {
        await propertyCheck(count: Self.cases, input: zip(Generators.sectioned, Gen.int(in: 0...1000))) { input, pick in
            let (source, script) = input
            let target = source.edited(by: script)
            var changeset = StagedChangeset(source: source, target: target)
            let structural = changeset.indices.flatMap { stage in
                let changes = changeset[stage]
                let kinds = [changes.sectionDeleted.count, changes.sectionInserted.count, changes.sectionMoved.count,
                             changes.elementDeleted.count, changes.elementInserted.count, changes.elementMoved.count]
                return kinds.enumerated().flatMap { kind, count in (0..<count).map { (stage, kind, $0) } }
            }
            guard !structural.isEmpty else { return }
            let (stage, kind, offset) = structural[pick % structural.count]
            switch kind {
            case 0: changeset[stage].sectionDeleted.remove(at: offset)
            case 1: changeset[stage].sectionInserted.remove(at: offset)
            case 2: changeset[stage].sectionMoved.remove(at: offset)
            case 3: changeset[stage].elementDeleted.remove(at: offset)
            case 4: changeset[stage].elementInserted.remove(at: offset)
            default: changeset[stage].elementMoved.remove(at: offset)
            }
            #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: source) }
        }
    }
}

/// The properties every staged changeset must have, for one shape of list.
struct ChangesetChecks<List: RangeReplaceableCollection & Equatable, Operation> {
    let apply: (StagedChangeset<List>, List) throws -> List
    let validate: (StagedChangeset<List>, List) throws -> Void
    let operations: (StagedChangeset<List>, List) throws -> [Operation]
    let applyOperations: ([Operation], List) -> List
    let minimalCounts: (List, List) -> ChangeCounts
    let diff: (List, List) -> StagedChangeset<List>

    /// Checks every property, recording a thrown error as an issue:
    /// swift-property-based 2.0.1 runs a property's body under `try?`, so an
    /// error escaping it would be lost.
    func check(from source: List, to target: List, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try checkThrowing(from: source, to: target)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    private func checkThrowing(from source: List, to target: List) throws {
        let changeset = diff(source, target)
        // (a) Replaying the operations yields exactly the target.
        #expect(try apply(changeset, source) == target)
        // (b) Every stage is a valid batch update, and its data is the state replayed so far.
        try validate(changeset, source)
        for stage in changeset.indices {
            #expect(try apply(StagedChangeset(changeset[...stage]), source) == changeset[stage].data)
        }
        #expect(changeset.last.map { $0.data == target } ?? (source == target))
        #expect(changeset.allSatisfy { $0.hasChanges })
        // (c) The changes are the minimal ones.
        #expect(ChangeCounts(changeset) == minimalCounts(source, target))
        // (d) Sequential operations, applied one by one, yield the target.
        let singleOperations = try operations(changeset, source)
        #expect(singleOperations.count == changeset.reduce(0) { $0 + $1.changeCount })
        #expect(applyOperations(singleOperations, source) == target)
    }
}

extension ChangesetChecks where List == [Item], Operation == ListOperation<Item> {
    static var linear: Self {
        Self(
            apply: { try $0.apply(to: $1) },
            validate: { try $0.validate(source: $1) },
            operations: { try $0.sequentialOperations(from: $1) },
            applyOperations: { operations, list in operations.reduce(into: list) { $0.apply($1) } },
            minimalCounts: ChangeCounts.init(minimalFrom:to:),
            diff: StagedChangeset.init(source:target:)
        )
    }
}

extension ChangesetChecks where List == [Section], Operation == SectionedListOperation<Section, Item> {
    static var sectioned: Self {
        Self(
            apply: { try $0.apply(to: $1) },
            validate: { try $0.validate(source: $1) },
            operations: { try $0.sequentialOperations(from: $1) },
            applyOperations: { operations, list in operations.reduce(into: list) { $0.apply($1) } },
            minimalCounts: ChangeCounts.init(minimalFrom:to:),
            diff: StagedChangeset.init(source:target:)
        )
    }
}
