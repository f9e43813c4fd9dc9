import ListDiff
import ListFormats
import PropertyBased
import Synchronization
import Testing
@testable import ListSyncDaemon

/// `RecordChanges` counts a changeset's records without building any stage's whole data (which
/// ListDiff builds when asked: the whole list, per stage): the counts are those read from each
/// stage's data, as they were counted before. Random edits of lists sectioned by a field:
/// sections inserted, deleted and reordered, records inserted, deleted, updated and moved across
/// sections.
@Suite struct RecordChangesPropertyTests {
    /// Rows of a CSV file sectioned by `group`: (id, group, value).
    typealias Rows = [(id: Int, group: Int, value: Int)]

    static let versions = Generator<(Rows, Rows), Shrink.None<(Rows, Rows)>> { rng in
        let source: Rows = (0..<Int.random(in: 0...30, using: &rng)).map {
            ($0, Int.random(in: 0..<5, using: &rng), Int.random(in: 0..<3, using: &rng))
        }
        var target = source.filter { _ in Int.random(in: 0..<6, using: &rng) > 0 }
        for index in target.indices {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: target[index].group = Int.random(in: 0..<7, using: &rng)
            case 1: target[index].value += 1
            default: break
            }
        }
        for id in 100..<(100 + Int.random(in: 0...4, using: &rng)) {
            target.insert((id, Int.random(in: 0..<7, using: &rng), 0), at: Int.random(in: 0...target.count, using: &rng))
        }
        if target.count > 1, Bool.random(using: &rng) { target.swapAt(0, target.count - 1) }
        return (source, target)
    }

    static func list(_ rows: Rows) throws -> ParsedList {
        let text = "id,group,value\n" + rows.map { "\($0.id),g\($0.group),\($0.value)\n" }.joined()
        return try ListReader(options: ReadOptions(format: .csv(delimiter: .comma), key: ["id"], sectionBy: "group")).read(bytes: Array(text.utf8))
    }

    /// The counts read from each stage's whole data: the records of the sections each stage
    /// inserts in the data after it, those it deletes in the data before it.
    static func countedFromStageData(
        _ changeset: StagedChangeset<[ArraySection<SectionModel, ListRecord>]>, source: [ArraySection<SectionModel, ListRecord>]
    ) -> RecordChanges {
        var counts = RecordChanges()
        var before = source
        for stage in changeset {
            let after = stage.data
            counts.inserted += stage.elementInserted.count + stage.sectionInserted.reduce(0) { $0 + after[$1].elements.count }
            counts.deleted += stage.elementDeleted.count + stage.sectionDeleted.reduce(0) { $0 + before[$1].elements.count }
            counts.updated += stage.elementUpdated.count
            counts.moved += stage.elementMoved.count
            before = after
        }
        return counts
    }

    @Test func theCountsAreThoseOfEveryStagesData() async {
        await propertyCheck(count: 400, input: Self.versions) { versions in
            let (source, target) = (try Self.list(versions.0), try Self.list(versions.1))
            let changeset = StagedChangeset(source: source.sections, target: target.sections)
            #expect(RecordChanges(changeset, source: source.sections) == Self.countedFromStageData(changeset, source: source.sections))
        }
    }

    /// Sections that count how often a whole list of them is built from a sequence — what
    /// ListDiff does to give a stage's `data`.
    struct CountedSections: RangeReplaceableCollection {
        static let built = Atomic<Int>(0)
        var sections: [ArraySection<SectionModel, ListRecord>] = []

        init() {}
        init(sections: [ArraySection<SectionModel, ListRecord>]) { self.sections = sections }
        init<S: Sequence>(_ elements: S) where S.Element == ArraySection<SectionModel, ListRecord> {
            Self.built.add(1, ordering: .relaxed)
            self.sections = Array(elements)
        }
        var startIndex: Int { sections.startIndex }
        var endIndex: Int { sections.endIndex }
        subscript(position: Int) -> ArraySection<SectionModel, ListRecord> { sections[position] }
        func index(after index: Int) -> Int { index + 1 }
        mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with new: C) where C.Element == ArraySection<SectionModel, ListRecord> {
            sections.replaceSubrange(range, with: new)
        }
    }

    /// A changeset of several stages (a record updated, one deleted, one inserted, sections
    /// inserted and deleted) is counted without building any stage's list.
    @Test func noStagesListIsBuilt() throws {
        let source = try Self.list([(0, 0, 0), (1, 0, 0), (2, 1, 0), (3, 2, 0), (4, 2, 0)])
        let target = try Self.list([(0, 0, 1), (2, 1, 0), (9, 1, 0), (3, 3, 0), (4, 3, 0)])
        let changeset = StagedChangeset(
            source: CountedSections(sections: source.sections), target: CountedSections(sections: target.sections))
        #expect(changeset.count >= 3)
        let before = CountedSections.built.load(ordering: .relaxed)
        let counts = RecordChanges(changeset, source: CountedSections(sections: source.sections))
        #expect(CountedSections.built.load(ordering: .relaxed) == before)
        #expect(counts == Self.countedFromStageData(
            StagedChangeset(source: source.sections, target: target.sections), source: source.sections))
    }
}
