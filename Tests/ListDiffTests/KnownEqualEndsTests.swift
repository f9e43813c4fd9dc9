import PropertyBased
import Synchronization
import Testing
@testable import ListDiff

/// `StagedChangeset(source:target:knownEqualEnds:)` gives exactly the changeset computed without
/// the hint, stage by stage and with the same data after every stage, for any true hint: any
/// part of the equal ends, everything equal, nothing equal, ends that meet (an insert or a delete
/// between them), repeated identifiers, one section or several. And with one section the
/// matching stores positions only for the elements between the paired ends.
@Suite struct KnownEqualEndsTests {
    /// A list with ends of distinct identifiers (100…, 200…) around a small middle, and the
    /// target the script makes of it; `cut` picks how much of the equal ends the hint says.
    static let framed = zip(
        Gen.int(in: 0...12), Gen.int(in: 0...12), Generators.item.array(of: 0...10), Generators.edits, Gen.int(in: 0...1_000)
    )

    static func frame(_ prefix: Int, _ suffix: Int, _ middle: [Item]) -> [Item] {
        (0..<prefix).map { Item(id: 100 + $0, content: $0 % 3) } + middle + (0..<suffix).map { Item(id: 200 + $0, content: $0 % 3) }
    }

    /// The longest true hint for `source` and `target`, cut to what `cut` picks of it.
    static func hint(_ source: [Item], _ target: [Item], cut: Int) -> KnownEqualEnds {
        let shortest = min(source.count, target.count)
        var prefix = 0
        while prefix < shortest && source[prefix] == target[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shortest - prefix && source[source.count - 1 - suffix] == target[target.count - 1 - suffix] { suffix += 1 }
        let unique = Set(source.map(\.id)).count == source.count && Set(target.map(\.id)).count == target.count
        switch cut % 4 {
        case 0: return KnownEqualEnds(prefix: prefix, suffix: suffix, identifiersAreUnique: unique)
        case 1: return KnownEqualEnds(prefix: prefix / 2, suffix: suffix, identifiersAreUnique: unique && cut % 8 == 1)
        case 2: return KnownEqualEnds(prefix: prefix, suffix: suffix / 3, identifiersAreUnique: unique)
        default: return KnownEqualEnds(prefix: cut % (prefix + 1), suffix: cut % (suffix + 1), identifiersAreUnique: false)
        }
    }

    static func expectSame(_ source: [Section], _ target: [Section], _ known: KnownEqualEnds, sourceLocation: SourceLocation = #_sourceLocation) {
        let hinted = StagedChangeset(source: source, target: target, knownEqualEnds: known)
        let full = StagedChangeset(source: source, target: target)
        #expect(hinted == full, "\(source) → \(target), \(known)", sourceLocation: sourceLocation)
        // The data after each stage, element by element (the deferred storage's lookups).
        for (stage, expected) in zip(hinted, full) {
            for section in expected.data.indices {
                for element in expected.data[section].elements.indices {
                    let path = ElementPath(element: element, section: section)
                    #expect(stage.element(at: path) == expected.data[section].elements[element], sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func oneSectionGivesTheChangesetWithoutTheHint() async {
        await propertyCheck(count: 4_000, input: Self.framed) { prefix, suffix, middle, script, cut in
            let source = Self.frame(prefix, suffix, middle)
            let target = Self.frame(prefix, suffix, middle.edited(by: script))
            Self.expectSame(
                [Section(model: Model(id: 0, content: 0), elements: source)],
                [Section(model: Model(id: 0, content: 0), elements: target)],
                Self.hint(source, target, cut: cut))
        }
    }

    @Test func severalSectionsGiveTheChangesetWithoutTheHint() async {
        await propertyCheck(count: 4_000, input: zip(Self.framed, Gen.int(in: 0...30), Gen.int(in: 0...30))) { framed, split, targetSplit in
            let (prefix, suffix, middle, script, cut) = framed
            let source = Self.frame(prefix, suffix, middle)
            let target = Self.frame(prefix, suffix, middle.edited(by: script))
            func sections(_ items: [Item], at split: Int) -> [Section] {
                let at = min(split, items.count)
                return [Section(model: Model(id: 0, content: 0), elements: Array(items[..<at])),
                        Section(model: Model(id: 1, content: 0), elements: Array(items[at...]))]
            }
            Self.expectSame(sections(source, at: split), sections(target, at: split % 3 == 0 ? targetSplit : split), Self.hint(source, target, cut: cut))
        }
    }

    /// The edges: everything equal (the hint at the start, at the end, or split), nothing
    /// equal, ends that meet around an insert and a delete, an empty side.
    @Test func edges() {
        let list = Self.frame(6, 6, [])
        let section = { (items: [Item]) in [Section(model: Model(id: 0, content: 0), elements: items)] }
        for (prefix, suffix) in [(12, 0), (0, 12), (5, 7), (3, 2), (0, 0)] {
            Self.expectSame(section(list), section(list), KnownEqualEnds(prefix: prefix, suffix: suffix, identifiersAreUnique: true))
        }
        let changed = list.map { Item(id: $0.id + 1_000, content: $0.content) }
        Self.expectSame(section(list), section(changed), .nothing)
        var inserted = list
        inserted.insert(Item(id: 7, content: 0), at: 6)
        Self.expectSame(section(list), section(inserted), KnownEqualEnds(prefix: 6, suffix: 6, identifiersAreUnique: true))
        Self.expectSame(section(inserted), section(list), KnownEqualEnds(prefix: 6, suffix: 6, identifiersAreUnique: true))
        Self.expectSame(section([]), section(list), KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true))
        Self.expectSame(section(list), section([]), KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true))
    }

    /// A one-element change in a list of 100,000 with the ends known: the matching stores no
    /// position (the changed element keeps its identifier, so it pairs in place too), not two
    /// arrays of 100,000; an insert stores the one inserted position.
    @Test func theMatchingStoresOnlyThePositionsBetweenTheEnds() {
        let count = 100_000
        let source = ContiguousArray((0..<count).map { Item(id: $0, content: 0) })
        var target = source
        target[40_000].content = 1
        let difference = ListDifference(
            source: source, sourceBounds: [0, count], target: target, targetBounds: [0, count], sections: .singleSection,
            sectionUpdated: [], known: KnownEqualEnds(prefix: 40_000, suffix: count - 40_001, identifiersAreUnique: true))
        #expect(difference.elements.sourceToTarget.stored.count == 0)
        #expect(difference.elements.targetToSource.stored.count == 0)
        #expect(difference.elementUpdated == [ElementPath(element: 40_000, section: 0)])
        #expect(difference.elements.sourceToTarget[39_999] == 39_999 && difference.elements.targetToSource[99_999] == 99_999)

        // An insert: the maps shift the suffix by one.
        var inserted = Array(source)
        inserted.insert(Item(id: -1, content: 0), at: 40_000)
        let insertion = ListDifference(
            source: source, sourceBounds: [0, count], target: ContiguousArray(inserted), targetBounds: [0, count + 1],
            sections: .singleSection, sectionUpdated: [], known: KnownEqualEnds(prefix: 40_000, suffix: count - 40_000, identifiersAreUnique: true))
        #expect(insertion.elements.sourceToTarget.stored.count == 0)
        #expect(insertion.elements.targetToSource.stored.count == 1)
        #expect(insertion.elements.sourceToTarget[40_000] == 40_001 && insertion.elements.targetToSource[40_001] == 40_000)
        #expect(insertion.elements.targetToSource[40_000] == -1)
        #expect(insertion.elementInserted == [ElementPath(element: 40_000, section: 0)])
    }

    /// Counts the comparisons of identifiers and contents made by the engine.
    static let comparisons = Mutex((identifiers: 0, contents: 0))

    struct CountedID: Hashable, Sendable {
        var value: Int
        static func == (a: CountedID, b: CountedID) -> Bool {
            KnownEqualEndsTests.comparisons.withLock { $0.identifiers += 1 }
            return a.value == b.value
        }
        func hash(into hasher: inout Hasher) { hasher.combine(value) }
    }

    struct CountedItem: Differentiable, Equatable, Sendable {
        var id: Int
        var content: Int
        var differenceIdentifier: CountedID { CountedID(value: id) }
        func isContentEqual(to source: CountedItem) -> Bool {
            KnownEqualEndsTests.comparisons.withLock { $0.contents += 1 }
            return content == source.content
        }
    }

    /// An element changed in place in a list of 100,000 with the rest known equal: the matching
    /// compares no identifier of the known ends, and the diff compares the contents of the
    /// changed element only (beyond debug builds' check of the hint, one comparison per element).
    @Test func anElementChangedInPlaceCostsNoComparisonAtTheKnownEnds() {
        let count = 100_000
        let source = ContiguousArray((0..<count).map { CountedItem(id: $0, content: 0) })
        var target = source
        target[40_000].content = 1
        let known = KnownEqualEnds(prefix: 40_000, suffix: count - 40_001, identifiersAreUnique: true)
        Self.comparisons.withLock { $0 = (0, 0) }
        let ends = source.withUnsafeBufferPointer { source in
            target.withUnsafeBufferPointer { target in IdentifierMatching.pairedEnds(source: source, target: target, known: known) }
        }
        #expect(ends.prefix == count && ends.suffix == 0)
        #expect(Self.comparisons.withLock { $0.identifiers } <= 2, "identifiers compared beyond the changed element")

        Self.comparisons.withLock { $0 = (0, 0) }
        let difference = ListDifference(
            source: source, sourceBounds: [0, count], target: target, targetBounds: [0, count], sections: .singleSection,
            sectionUpdated: [], known: known)
        #expect(difference.elementUpdated == [ElementPath(element: 40_000, section: 0)])
        let checks = _isDebugAssertConfiguration() ? count - 1 : 0
        #expect(Self.comparisons.withLock { $0.contents } <= checks + 2, "contents compared at the known ends")
    }
}
