import ListDiff
import Testing

/// Hand-made stages that UIKit would reject must fail validation with a
/// message that says why; valid hand-made ones must pass.
@Suite struct BatchUpdateValidationTests {
    let items = ["a", "b", "c", "d", "e", "f"]

    func path(_ element: Int, _ section: Int = 0) -> ElementPath {
        ElementPath(element: element, section: section)
    }

    /// The crash from the seeds: insert 3 items at the end and delete 3 at
    /// the beginning in one batch.
    @Test func insertingAtTheOldEndWhileDeletingIsTheSeedCrash() {
        let changeset = StagedChangeset([Changeset(
            data: ["d", "e", "f", "g", "h", "i"],
            elementDeleted: [path(0), path(1), path(2)],
            elementInserted: [path(6), path(7), path(8)]
        )])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: items) }
        #expect(violation?.kind == .elementOutOfRange(.insert, path: path(6), count: 6))
        #expect(violation?.description ==
            "stage 0: attempt to insert element 6 into section 0, but there are only 6 elements in section 0 after the update")
    }

    @Test func theSameChangeWithIndicesAfterTheDeletionsIsValid() throws {
        let changeset = StagedChangeset([Changeset(
            data: ["d", "e", "f", "g", "h", "i"],
            elementDeleted: [path(0), path(1), path(2)],
            elementInserted: [path(3), path(4), path(5)]
        )])
        try changeset.validate(source: items)
        #expect(try changeset.apply(to: items) == ["d", "e", "f", "g", "h", "i"])
    }

    @Test func dataWithTheWrongNumberOfElements() {
        let changeset = StagedChangeset([Changeset(data: ["b", "c", "d", "e", "f", "x"], elementDeleted: [path(0)])])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: items) }
        #expect(violation?.kind == .elementCountMismatch(section: 0, expected: 5, actual: 6))
    }

    @Test func untouchedElementsMustKeepTheirOrder() {
        // "a" and "b" swap places, but no move says so.
        let changeset = StagedChangeset([Changeset(data: ["b", "a", "c", "d", "e", "f"], elementUpdated: [path(0)])])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: items) }
        #expect(violation?.kind == .elementMismatch(path: path(0)))
    }

    @Test func deletingTheSameElementTwice() {
        let changeset = StagedChangeset([Changeset(data: ["b", "c", "d", "e", "f"], elementDeleted: [path(0), path(0)])])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: items) }
        #expect(violation?.kind == .elementUsedTwice(.delete, path: path(0)))
    }

    @Test func movingAndDeletingTheSameElement() {
        let changeset = StagedChangeset([Changeset(
            data: ["b", "c", "d", "e", "f"],
            elementDeleted: [path(0)],
            elementMoved: [(source: path(0), target: path(4))]
        )])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: items) }
        #expect(violation?.kind == .elementUsedTwice(.moveFrom, path: path(0)))
    }

    @Test func aMoveIsReadFromBeforeAndToAfter() throws {
        let changeset = StagedChangeset([Changeset(
            data: ["b", "c", "d", "e", "f", "a"],
            elementMoved: [(source: path(0), target: path(5))]
        )])
        try changeset.validate(source: items)
        #expect(try changeset.sequentialOperations(from: items) == [.move(from: 0, to: 5)])
    }

    @Test func laterStagesAreCheckedOnTheStateTheEarlierOnesLeft() {
        let changeset = StagedChangeset([
            Changeset(data: ["a", "b", "c"], elementDeleted: [path(3), path(4), path(5)]),
            Changeset(data: ["a", "b"], elementDeleted: [path(3)]),
        ])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: items) }
        #expect(violation == BatchUpdateViolation(stage: 1, kind: .elementOutOfRange(.delete, path: path(3), count: 3)))
    }

    @Test func elementOperationsInsideADeletedSection() {
        let source = [ArraySection(model: "x", elements: ["a"]), ArraySection(model: "y", elements: ["b"])]
        let changeset = StagedChangeset([Changeset(
            data: [ArraySection(model: "y", elements: ["b"])],
            sectionDeleted: [0],
            elementDeleted: [path(0, 0)]
        )])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: source) }
        #expect(violation?.kind == .elementInDeletedSection(.delete, path: path(0, 0)))
    }

    @Test func sectionsThatSwapWithoutAMove() {
        let source = [ArraySection(model: "x", elements: ["a"]), ArraySection(model: "y", elements: ["b"])]
        let changeset = StagedChangeset([Changeset(
            data: [ArraySection(model: "y", elements: ["b"]), ArraySection(model: "x", elements: ["a"])],
            sectionUpdated: [0]
        )])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: source) }
        #expect(violation?.kind == .sectionMismatch(section: 0))
    }

    @Test func aSectionInsertOutOfRange() {
        let source = [ArraySection(model: "x", elements: ["a"])]
        let changeset = StagedChangeset([Changeset(
            data: [ArraySection(model: "x", elements: ["a"]), ArraySection(model: "y", elements: [])],
            sectionInserted: [2]
        )])
        let violation = #expect(throws: BatchUpdateViolation.self) { try changeset.validate(source: source) }
        #expect(violation?.kind == .sectionOutOfRange(.insert, section: 2, count: 2))
        #expect(violation?.description == "stage 0: attempt to insert section 2, but there are only 2 sections after the update")
    }

    @Test func applyRefusesWhatItCannotReplay() {
        let changeset = StagedChangeset([Changeset(data: ["z"], elementDeleted: [path(9)])])
        #expect(throws: BatchUpdateViolation.self) { try changeset.apply(to: items) }
        #expect(throws: BatchUpdateViolation.self) { try changeset.sequentialOperations(from: items) }
    }
}
