import PropertyBased
import Testing
@testable import ListDiff

/// With unique identifiers, `IdentifierMatching` pairs the elements in step (no table over the
/// source) and gives exactly the table's matching: for lists edited by any script (deletions,
/// inserts, moves, swaps, updates), lists far out of order (reversed), and any limit on the
/// identifiers held out of step — from 0, which leaves everything to the table at the first
/// difference, to none at all. The changesets built on it are the ones without the hint.
@Suite struct InStepMatchingTests {
    /// A source of distinct identifiers `0..<count`, the target a script makes of it (its
    /// repeats dropped, so that it has distinct identifiers too), whether to reverse the target,
    /// and the pending limit: `nil` for the default, else 0…8.
    static let lists = zip(
        Gen.int(in: 0...30), Gen.int(in: 0...2).array(of: 0...30), Generators.edits, Gen.int(in: 0...9), Gen.int(in: 0...9))

    static func make(
        _ count: Int, _ contents: [Int], _ script: [Edit], _ reverse: Int
    ) -> (source: [Item], target: [Item]) {
        let source = (0..<count).map { Item(id: $0, content: contents.isEmpty ? 0 : contents[$0 % contents.count]) }
        var seen = Set<Int>()
        var target = source.edited(by: script).filter { seen.insert($0.id).inserted }
        if reverse == 0 { target.reverse() }
        return (source, target)
    }

    static func positions(_ map: PositionMap, count: Int) -> [Int] {
        (0..<count).map { map[$0] }
    }

    @Test func inStepMatchingIsTheTables() async {
        await propertyCheck(count: 6_000, input: Self.lists) { count, contents, script, reverse, limit in
            let (source, target) = Self.make(count, contents, script, reverse)
            let unique = KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true)
            let pendingLimit = limit == 9 ? nil : limit
            for storesPairedEnds in [true, false] {
                let inStep = IdentifierMatching(
                    source: ContiguousArray(source), target: ContiguousArray(target), known: unique,
                    storesPairedEnds: storesPairedEnds, inStepPendingLimit: pendingLimit)
                let table = IdentifierMatching(
                    source: ContiguousArray(source), target: ContiguousArray(target), known: .nothing,
                    storesPairedEnds: storesPairedEnds)
                #expect(Self.positions(inStep.sourceToTarget, count: source.count) == Self.positions(table.sourceToTarget, count: source.count),
                        "\(source) → \(target), limit \(String(describing: pendingLimit))")
                #expect(Self.positions(inStep.targetToSource, count: target.count) == Self.positions(table.targetToSource, count: target.count),
                        "\(source) → \(target), limit \(String(describing: pendingLimit))")
                #expect(inStep.pairedPrefix == table.pairedPrefix && inStep.pairedSuffix == table.pairedSuffix)
            }
        }
    }

    @Test func linearChangesetWithTheHintIsTheOneWithout() async {
        await propertyCheck(count: 3_000, input: Self.lists) { count, contents, script, reverse, _ in
            let (source, target) = Self.make(count, contents, script, reverse)
            let hinted = StagedChangeset(
                source: source, target: target, section: 0,
                knownEqualEnds: KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true))
            #expect(hinted == StagedChangeset(source: source, target: target), "\(source) → \(target)")
        }
    }

    /// A long list with a few changes spread over it holds few identifiers at a time, and one
    /// moved far (first to last) is held until its place comes: the matching is still the table's.
    @Test func longListWithScatteredChanges() {
        let source = (0..<20_000).map { Item(id: $0, content: 0) }
        var target = source
        for index in stride(from: 97, to: 19_000, by: 211) { target[index].content = 1 }
        for index in stride(from: 18_500, to: 500, by: -1_733) { target.remove(at: index) }
        for index in stride(from: 300, to: 18_000, by: 1_901) { target.insert(Item(id: 100_000 + index, content: 2), at: index) }
        target.append(target.removeFirst())
        let unique = KnownEqualEnds(prefix: 0, suffix: 0, identifiersAreUnique: true)
        let inStep = IdentifierMatching(source: ContiguousArray(source), target: ContiguousArray(target), known: unique)
        let table = IdentifierMatching(source: ContiguousArray(source), target: ContiguousArray(target))
        // (Compared as Booleans: the lists are too long to print.)
        let sameSourceToTarget = Self.positions(inStep.sourceToTarget, count: source.count) == Self.positions(table.sourceToTarget, count: source.count)
        let sameTargetToSource = Self.positions(inStep.targetToSource, count: target.count) == Self.positions(table.targetToSource, count: target.count)
        let sameChangeset = StagedChangeset(source: source, target: target, section: 0, knownEqualEnds: unique) == StagedChangeset(source: source, target: target)
        #expect(sameSourceToTarget && sameTargetToSource && sameChangeset)
        // In step indeed, not through the table after giving up; reversed, it gives up at its limit.
        let pairedInStep = Self.matchInStep(source, target) == Self.positions(table.sourceToTarget, count: source.count)
        #expect(pairedInStep)
        #expect(Self.matchInStep(source, source.reversed()) == nil)
    }

    /// What `matchInStep` makes of two whole lists with its default limit: the source's target
    /// positions, or `nil` when it gave up (then having written nothing).
    static func matchInStep(_ source: [Item], _ target: [Item]) -> [Int]? {
        var sourceToTarget = [Int](repeating: -1, count: source.count)
        var targetToSource = [Int](repeating: -1, count: target.count)
        let paired = source.withUnsafeBufferPointer { source in
            target.withUnsafeBufferPointer { target in
                sourceToTarget.withUnsafeMutableBufferPointer { sourceToTarget in
                    targetToSource.withUnsafeMutableBufferPointer { targetToSource in
                        IdentifierMatching.matchInStep(
                            source: source, target: target, sourceToTarget: sourceToTarget, targetToSource: targetToSource,
                            offset: 0, pendingLimit: IdentifierMatching.inStepPendingLimit(sourceCount: source.count, targetCount: target.count))
                    }
                }
            }
        }
        guard paired else {
            #expect(sourceToTarget.allSatisfy { $0 == -1 } && targetToSource.allSatisfy { $0 == -1 }, "written before giving up")
            return nil
        }
        return sourceToTarget
    }
}
