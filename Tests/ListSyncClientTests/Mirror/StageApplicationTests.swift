import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol
import Testing
import ListSyncTestSupport

/// A mirror applies decoded stages by ListDiff's batch-update rules (issue 18 item 3): one rule
/// set for the changesets the engine computes and the stages a client receives, with ListDiff's
/// typed violation and its messages.
@Suite struct StageApplicationTests {
    /// Sections a: ids 1, 2; b: 3; c: 4.
    let list: ParsedList
    let sections: [MirroredSection]
    let record = ChangesetStage.Record(value: .string("x"), hash: ListValue.string("x").contentHash)

    init() throws {
        let list = try Versions.read(Versions.json([(1, "a", 0), (2, "a", 0), (3, "b", 0), (4, "c", 0)]), sectioned: true)
        self.list = list
        sections = Self.sections(of: list)
    }

    static func sections(of list: ParsedList) -> [MirroredSection] {
        list.sections.map { section in
            MirroredSection(model: ChangesetStage.Section(section.model), records: section.elements.map { ChangesetStage.Record($0, of: list) })
        }
    }

    func path(_ element: Int, _ section: Int) -> ElementPath {
        ElementPath(element: element, section: section)
    }

    func placed(_ element: Int, _ section: Int) -> ChangesetStage.PlacedRecord {
        ChangesetStage.PlacedRecord(path: path(element, section), record: record)
    }

    /// Stages that break a rule, each with what ListDiff's own validator says of the same
    /// operations on the same list: the mirror refuses each with exactly that violation, and
    /// leaves the sections as they were.
    @Test func aDecodedStageIsRefusedAsListDiffRefusesTheSameOperations() throws {
        let section = ChangesetStage.Section(model: .string("d"), hash: ListValue.string("d").contentHash)
        let cases: [(ChangesetStage, Changeset<[ArraySection<SectionModel, ListRecord>]>)] = [
            (ChangesetStage(elementDeleted: [path(1, 0), path(1, 0)]),
             Changeset(data: [], elementDeleted: [path(1, 0), path(1, 0)])),
            (ChangesetStage(elementDeleted: [path(2, 0)]), Changeset(data: [], elementDeleted: [path(2, 0)])),
            (ChangesetStage(elementMoved: [.init(source: path(0, 0), target: path(9, 0))]),
             Changeset(data: [], elementMoved: [(path(0, 0), path(9, 0))])),
            (ChangesetStage(sectionDeleted: [1], elementDeleted: [path(0, 1)]),
             Changeset(data: [], sectionDeleted: [1], elementDeleted: [path(0, 1)])),
            (ChangesetStage(sectionInserted: [.init(index: 1, section: .init(model: section.model, hash: section.hash), records: [])], elementInserted: [placed(0, 1)]),
             Changeset(data: [], sectionInserted: [1], elementInserted: [path(0, 1)])),
            (ChangesetStage(sectionMoved: [.init(source: 0, target: 3)]), Changeset(data: [], sectionMoved: [(0, 3)])),
            // An update and a deletion of the same record: applied one after the other before.
            (ChangesetStage(elementDeleted: [path(0, 2)], elementUpdated: [placed(0, 2)]),
             Changeset(data: [], elementDeleted: [path(0, 2)], elementUpdated: [path(0, 2)])),
            (ChangesetStage(elementInserted: [placed(0, 0), placed(0, 0)]),
             Changeset(data: [], elementInserted: [path(0, 0), path(0, 0)])),
        ]
        for (stage, operations) in cases {
            let expected = #expect(throws: BatchUpdateViolation.self) {
                try StagedChangeset([operations]).validate(source: list.sections)
            }
            var applied = sections
            let violation = #expect(throws: BatchUpdateViolation.self) { try stage.apply(to: &applied) }
            #expect(violation != nil && violation == expected, "\(stage)")
            #expect(applied == sections, "\(stage)")
        }
    }

    /// A mirror names the changeset, the stage and ListDiff's reason, and rolls back.
    @Test func aMirrorSaysWhyAStageDoesNotApply() throws {
        var mirror = try Versions.mirror(of: list, seq: 1)
        let changeset = ChangesetMessage(
            watch: Versions.watch, cursor: Cursor(epoch: Versions.epoch, seq: 2), prevSeq: 1,
            stages: [ChangesetStage(elementUpdated: [placed(0, 0)]), ChangesetStage(elementDeleted: [path(2, 0)])],
            digest: ListDigest(of: list), schema: nil)
        let error = #expect(throws: MirrorError.self) { try mirror.apply(changeset) }
        #expect(error == .invalidStage(
            changeset: changeset.cursor, stage: 1,
            reason: "attempt to delete element 2 from section 0, but there are only 2 elements in section 0 before the update"))
        #expect(error?.description == "stage 1 of changeset \(changeset.cursor) cannot be applied: "
            + "attempt to delete element 2 from section 0, but there are only 2 elements in section 0 before the update")
        #expect(mirror.sections == sections)
    }

    /// Valid stages of every kind still apply: the engine's changeset between two versions,
    /// through the wire, turns the mirror's sections into the new list's, stage by stage.
    @Test func theEnginesStagesApplyStageByStage() throws {
        let new = try Versions.read(Versions.json([(4, "c", 0), (1, "a", 0), (2, "a", 9), (5, "d", 1)]), sectioned: true)
        var applied = sections
        for (number, stage) in try Versions.changeset(from: list, to: new, seq: 2).stages.enumerated() {
            try stage.apply(to: &applied, number: number)
        }
        #expect(applied == Self.sections(of: new))
    }
}
