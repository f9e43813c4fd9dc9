import ListDiff
import Testing

/// What a DifferenceKit user relies on beyond the examples: stage layout,
/// index spaces, duplicates, and the greedy moves ListDiff improves on.
@Suite struct DifferenceKitCompatibilityTests {
    func path(_ element: Int, _ section: Int = 0) -> ElementPath {
        ElementPath(element: element, section: section)
    }

    @Test func onlyDeletionsMakeOneStage() {
        let changeset = StagedChangeset(source: ["a", "b", "c"], target: ["b"])
        #expect(changeset.count == 1)
        #expect(changeset[0].elementDeleted == [path(0), path(2)])
        #expect(changeset[0].data == ["b"])
    }

    @Test func onlyInsertionsMakeOneStage() {
        let changeset = StagedChangeset(source: [String](), target: ["a", "b"])
        #expect(changeset.count == 1)
        #expect(changeset[0].elementInserted == [path(0), path(1)])
    }

    @Test func equalListsMakeNoStage() {
        #expect(StagedChangeset(source: ["a", "b"], target: ["a", "b"]).isEmpty)
        #expect(StagedChangeset(source: [String](), target: []).isEmpty)
    }

    @Test func updatesComeFirstAtSourceIndicesWithTheNewValues() {
        let source = [Item(id: 1, content: 0), Item(id: 2, content: 0), Item(id: 3, content: 0)]
        let target = [Item(id: 3, content: 0), Item(id: 2, content: 5)]
        let changeset = StagedChangeset(source: source, target: target)
        #expect(changeset.count == 3)
        #expect(changeset[0].elementUpdated == [path(1)])
        #expect(changeset[0].data == [Item(id: 1, content: 0), Item(id: 2, content: 5), Item(id: 3, content: 0)])
        #expect(changeset[0].element(at: 1) == Item(id: 2, content: 5))
        #expect(changeset[1].elementDeleted == [path(0)])
        #expect(changeset[1].data == [Item(id: 2, content: 5), Item(id: 3, content: 0)])
        // One move, from the index after the deletions ("3" is at 1) to the target index.
        #expect(changeset[2].elementMoved.map { [$0.source, $0.target] } == [[path(1), path(0)]])
    }

    @Test func duplicatesAreMatchedFirstComeFirstServed() {
        let changeset = StagedChangeset(source: ["a", "x", "a", "a"], target: ["a", "a", "y"])
        // The first two "a"s are kept; the third one is deleted, with "x".
        #expect(changeset[0].elementDeleted == [path(1), path(3)])
        #expect(changeset[1].elementInserted == [path(2)])
        #expect(changeset[1].elementMoved.isEmpty)
    }

    /// DifferenceKit's greedy cursor reports n − 1 moves here; one suffices.
    @Test func movingTheFirstElementToTheEndIsOneMove() {
        let source = (0..<100).map(String.init)
        let target = Array(source.dropFirst()) + [source[0]]
        let changeset = StagedChangeset(source: source, target: target)
        #expect(changeset.count == 1)
        #expect(changeset[0].elementMoved.map { [$0.source, $0.target] } == [[path(0), path(99)]])
    }

    @Test func reversingKeepsOneElementInPlace() {
        let source = (0..<10).map(String.init)
        let changeset = StagedChangeset(source: source, target: source.reversed())
        #expect(changeset[0].elementMoved.count == 9)
    }

    @Test func aLinearDiffCanNameItsSection() {
        let changeset = StagedChangeset(source: ["a", "b"], target: ["b"], section: 3)
        #expect(changeset[0].elementDeleted == [path(0, 3)])
    }

    @Test func aMoveAcrossSectionsCountsOnce() {
        let source = [ArraySection(model: "s", elements: ["a", "b", "c"]), ArraySection(model: "t", elements: ["d"])]
        let target = [ArraySection(model: "s", elements: ["b", "c"]), ArraySection(model: "t", elements: ["a", "d"])]
        let changeset = StagedChangeset(source: source, target: target)
        #expect(changeset.count == 1)
        #expect(changeset[0].elementMoved.map { [$0.source, $0.target] } == [[path(0, 0), path(0, 1)]])
    }

    @Test func elementsOfDeletedAndInsertedSectionsGoWithTheirSection() {
        let source = [ArraySection(model: "gone", elements: ["a", "b"]), ArraySection(model: "kept", elements: ["c"])]
        let target = [ArraySection(model: "kept", elements: ["c", "a"]), ArraySection(model: "new", elements: ["b"])]
        let changeset = StagedChangeset(source: source, target: target)
        let deletions = changeset.first { !$0.sectionDeleted.isEmpty }
        #expect(deletions?.sectionDeleted == [0])
        #expect(deletions?.elementDeleted == [])
        let insertions = changeset.first { !$0.elementInserted.isEmpty }
        // "a" comes back as an insert into a kept section; "b" arrives with its new section.
        #expect(insertions?.elementInserted == [path(1, 0)])
        #expect(changeset.contains { $0.sectionInserted == [1] })
    }

    @Test func sectionModelChangesAreSectionUpdatesAtTargetIndicesLast() {
        let source = [ArraySection(model: Item(id: 1, content: 0), elements: ["a"])]
        let target = [ArraySection(model: Item(id: 1, content: 1), elements: ["a", "b"])]
        let changeset = StagedChangeset(source: source, target: target)
        #expect(changeset.count == 2)
        #expect(changeset[0].elementInserted == [path(1, 0)])
        #expect(changeset[0].data == [ArraySection(model: Item(id: 1, content: 0), elements: ["a", "b"])])
        #expect(changeset[1].sectionUpdated == [0])
        #expect(changeset[1].data == target)
    }
}
