import Testing
@testable import ListDiff

/// ListDiff checks its own output in debug builds (`_checkInvariants`, swift-collections'
/// pattern): every staged changeset it computes is checked where it is built — each stage a
/// valid batch update, indices in range, the stages in order and leading to the target's sizes.
/// These tests run the checks on computed changesets and show they stop a corrupt one.
struct StagedChangesetInvariantTests {
    static let source = [ArraySection(model: "a", elements: [1, 2, 3]), ArraySection(model: "b", elements: [4, 5])]
    static let target = [ArraySection(model: "b", elements: [5, 4, 6]), ArraySection(model: "c", elements: [1])]

    @Test func computedChangesetsHoldTheirInvariants() {
        let sectioned = StagedChangeset(source: Self.source, target: Self.target)
        #expect(sectioned.count > 1)
        sectioned._checkInvariants(sourceSectionSizes: [3, 2], targetSectionSizes: [3, 1])
        let linear = StagedChangeset(source: [1, 2, 3, 4], target: [4, 2, 5], section: 2)
        linear._checkInvariants(sourceSectionSizes: [0, 0, 4], targetSectionSizes: [0, 0, 3])
    }

    #if DEBUG
    /// A stage that deletes an element the list does not have.
    @Test func aStageOutOfRangeIsCaught() async {
        await #expect(processExitsWith: .failure) {
            var changeset = StagedChangeset(source: [1, 2, 3], target: [1, 2])
            changeset[0].elementDeleted.append(ElementPath(element: 7, section: 0))
            changeset._checkInvariants(sourceSectionSizes: [3], targetSectionSizes: [2])
        }
    }

    /// Stages that do not lead to the target: a lost insertion.
    @Test func stagesThatMissTheTargetAreCaught() async {
        await #expect(processExitsWith: .failure) {
            let changeset = StagedChangeset(source: [1, 2, 3], target: [1, 2, 3, 4])
            changeset._checkInvariants(sourceSectionSizes: [3], targetSectionSizes: [5])
        }
    }

    /// Stages out of their order: insertions before deletions.
    @Test func stagesOutOfOrderAreCaught() async {
        await #expect(processExitsWith: .failure) {
            let changeset = StagedChangeset(source: [1, 2, 3], target: [9, 2, 3, 8])
            let reordered = StagedChangeset(changeset.reversed())
            reordered._checkInvariants(sourceSectionSizes: [3], targetSectionSizes: [4])
        }
    }
    #endif
}
