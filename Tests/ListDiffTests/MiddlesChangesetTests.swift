import PropertyBased
import Testing
@testable import ListDiff

/// `StagedChangeset(middlesOf:to:section:knownEqualEnds:)`, which copies only the elements
/// between the ends known equal, gives exactly the changeset of
/// `StagedChangeset(source:target:section:knownEqualEnds:)` — stages, paths, and the data after
/// every stage, whole and element by element — for any true hint, unique identifiers or not.
@Suite struct MiddlesChangesetTests {
    /// `items` without the elements whose identifier came before (so that a list is often one of
    /// unique identifiers, the case the middles are diffed alone).
    static func firstOfEachIdentifier(_ items: [Item]) -> [Item] {
        var seen = Set<Int>()
        return items.filter { seen.insert($0.id).inserted }
    }

    static func expectSame(_ source: [Item], _ target: [Item], section: Int, _ known: KnownEqualEnds, sourceLocation: SourceLocation = #_sourceLocation) {
        let middles = StagedChangeset(middlesOf: source, to: target, section: section, knownEqualEnds: known)
        let whole = StagedChangeset(source: source, target: target, section: section, knownEqualEnds: known)
        #expect(middles == whole, "\(source) → \(target), \(known)", sourceLocation: sourceLocation)
        for (stage, expected) in zip(middles, whole) {
            #expect(stage.data == expected.data, sourceLocation: sourceLocation)
            for index in expected.data.indices {
                #expect(stage.element(at: index) == expected.data[index], "element \(index)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theMiddlesGiveTheChangesetOfTheWholeLists() async {
        await propertyCheck(count: 6_000, input: zip(KnownEqualEndsTests.framed, Gen.int(in: 0...3))) { framed, variant in
            let (prefix, suffix, middle, script, cut) = framed
            let unique = variant % 2 == 0
            let middleSource = unique ? Self.firstOfEachIdentifier(middle) : middle
            var middleTarget = middleSource.edited(by: script)
            if unique { middleTarget = Self.firstOfEachIdentifier(middleTarget) }
            let source = KnownEqualEndsTests.frame(prefix, suffix, middleSource)
            let target = KnownEqualEndsTests.frame(prefix, suffix, middleTarget)
            Self.expectSame(source, target, section: variant / 2 * 3, KnownEqualEndsTests.hint(source, target, cut: cut))
        }
    }

    /// The edges: everything equal, known at one end or split; an insert and a delete between
    /// ends that meet; an empty side.
    @Test func edges() {
        let list = KnownEqualEndsTests.frame(6, 6, [])
        for (prefix, suffix) in [(12, 0), (0, 12), (5, 7), (3, 2), (0, 0)] {
            Self.expectSame(list, list, section: 0, KnownEqualEnds(prefix: prefix, suffix: suffix, identifiersAreUnique: true))
        }
        var inserted = list
        inserted.insert(Item(id: 7, content: 0), at: 6)
        Self.expectSame(list, inserted, section: 0, KnownEqualEnds(prefix: 6, suffix: 6, identifiersAreUnique: true))
        Self.expectSame(inserted, list, section: 1, KnownEqualEnds(prefix: 6, suffix: 6, identifiersAreUnique: true))
        Self.expectSame([], list, section: 0, KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true))
        Self.expectSame(list, [], section: 0, KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true))
    }
}
