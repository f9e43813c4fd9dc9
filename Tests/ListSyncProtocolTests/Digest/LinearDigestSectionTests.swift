import ListDiff
@testable import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// The digest tree updated from a linear list's records in runs shared between versions
/// (``LinearDigestSection``) is, version after version, the tree updated from the arrays of the
/// same records: the same digest, which is the one computed from scratch.
@Suite struct LinearDigestSectionTests {
    /// `new` as a version read after `old` would hold it: `old`'s runs for the records both share
    /// at their ends, and a new array for the middle between them; compacted as the reader
    /// compacts (a small slack, so compaction happens in the test).
    static func sharedVersion(of new: [ListRecord], after old: [ListRecord], runs: ListRecords) -> (ListRecords, prefix: Int, suffix: Int) {
        let limit = min(old.count, new.count)
        var prefix = 0
        while prefix < limit, old[prefix].contentHash == new[prefix].contentHash { prefix += 1 }
        var suffix = 0
        while suffix < limit - prefix, old[old.count - 1 - suffix].contentHash == new[new.count - 1 - suffix].contentHash { suffix += 1 }
        let version = runs.records(in: 0..<prefix) + ListRecords(Array(new[prefix..<(new.count - suffix)]))
            + runs.records(in: (old.count - suffix)..<old.count)
        return (version.compacted(slack: 64), prefix, suffix)
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func runsGiveTheDigestOfTheArrays(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        let schema = ListSchema(columns: ["id", "name"])
        var records = (0..<(seed == 1 ? 0 : 30_000)).map { _ in ListDigestTreeTests.record(&generator) }
        var runs = ListRecords(records)
        var arrayTree = ListDigestTree(schema: schema, sections: [ArraySection(model: SectionModel(value: .null), elements: records)])
        var runsTree = arrayTree
        var sawRuns = false
        for step in 0..<150 {
            let old = records
            ListDigestTreeTests.edit(&records, &generator)
            let (next, prefix, suffix) = Self.sharedVersion(of: records, after: old, runs: runs)
            #expect(next.map(\.contentHash) == records.map(\.contentHash))
            sawRuns = sawRuns || next.runs.count > 1
            // Half the steps say what is known of the ends, half leave it to the tree.
            let known = step % 2 == 0 ? KnownEqualEnds(prefix: prefix, suffix: suffix, identifiersAreUnique: false) : .nothing
            arrayTree = arrayTree.updated(
                schema: schema, from: [ArraySection(model: SectionModel(value: .null), elements: old)],
                to: [ArraySection(model: SectionModel(value: .null), elements: records)], known: known)
            runsTree = runsTree.updated(schema: schema, fromDigestSections: [LinearDigestSection(runs)], to: [LinearDigestSection(next)], known: known)
            runs = next
            #expect(runsTree.digest == arrayTree.digest, "seed \(seed), step \(step), \(records.count) records")
            #expect(runsTree.digest == ListDigestTreeTests.scratch(schema, [ArraySection(model: SectionModel(value: .null), elements: records)]))
            if runsTree.digest != arrayTree.digest { return }
        }
        #expect(seed == 1 || sawRuns, "no version was held in runs")
    }
}
