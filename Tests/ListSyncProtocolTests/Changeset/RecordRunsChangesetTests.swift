import ListDiff
@testable import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// A changeset line computed from records in runs — a version that shares its unchanged ends'
/// records with the one before it (``ListRecords``), diffed on the middles only
/// (`StagedChangeset(middlesOf:to:section:knownEqualEnds:)`) — is byte for byte the line the
/// daemon writes today from the arrays as one section, for random CSV lists and edits, keyed
/// (unique identifiers) or not (repeated rows: the whole lists are diffed).
@Suite struct RecordRunsChangesetTests {
    /// Rows `id,name` with names from a small pool.
    static func text(_ rows: [(id: Int, name: Int)], keyed: Bool) -> String {
        "id,name\n" + rows.map { "\(keyed ? $0.id : $0.id % 3),n\($0.name)\n" }.joined()
    }

    /// A few random edits of `rows`: names changed, rows inserted, deleted, moved.
    static func edited(_ rows: [(id: Int, name: Int)], nextID: inout Int, using generator: inout SplitMix) -> [(id: Int, name: Int)] {
        var rows = rows
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            let at = Int.random(in: 0...rows.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where at < rows.count: rows[at].name = Int.random(in: 0..<4, using: &generator)
            case 1: rows.insert((nextID, 0), at: at); nextID += 1
            case 2 where at < rows.count: rows.remove(at: at)
            case 3 where at < rows.count:
                let row = rows.remove(at: at)
                rows.insert(row, at: Int.random(in: 0...rows.count, using: &generator))
            default: break
            }
        }
        return rows
    }

    /// `records` in random runs of their own storages, unshifted.
    static func inRuns(_ records: [ListRecord], using generator: inout SplitMix) -> ListRecords {
        var runs = ListRecords()
        var start = 0
        while start < records.count {
            let end = Int.random(in: (start + 1)...min(records.count, start + 7), using: &generator)
            runs = runs + ListRecords(Array(records[start..<end]))
            start = end
        }
        return runs
    }

    static func same(_ a: ListRecord, _ b: ListRecord) -> Bool {
        a.differenceIdentifier == b.differenceIdentifier && a.contentHash == b.contentHash
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func runsGiveTheLineOfTheArrays(seed: UInt64) throws {
        var generator = SplitMix(seed: seed)
        var sawMiddles = 0
        for round in 0..<1_500 {
            let keyed = round % 4 != 3
            var nextID = 100
            let rows = (0..<Int.random(in: 0...30, using: &generator)).map { (id: $0, name: Int.random(in: 0..<4, using: &generator)) }
            let oldText = Self.text(rows, keyed: keyed)
            let newText = Self.text(Self.edited(rows, nextID: &nextID, using: &generator), keyed: keyed)
            let old = try read(oldText, csv, key: keyed ? ["id"] : [])
            let new = try read(newText, csv, key: keyed ? ["id"] : [])
            let (oldRecords, newRecords) = (old.records, new.records)
            // The ends the two share, record for record; the hint names a random part of them.
            let limit = min(oldRecords.count, newRecords.count)
            var prefix = 0
            while prefix < limit, Self.same(oldRecords[prefix], newRecords[prefix]) { prefix += 1 }
            var suffix = 0
            while suffix < limit - prefix, Self.same(oldRecords[oldRecords.count - 1 - suffix], newRecords[newRecords.count - 1 - suffix]) { suffix += 1 }
            prefix = Int.random(in: 0...prefix, using: &generator)
            suffix = Int.random(in: 0...suffix, using: &generator)
            let unique = old.report.duplicateCount == 0 && new.report.duplicateCount == 0
            let known = KnownEqualEnds(prefix: prefix, suffix: suffix, identifiersAreUnique: unique)

            // The new version as the reader would hold it: the old runs at both ends, the suffix
            // moved by the change in length, the middle new.
            let oldRuns = Self.inRuns(oldRecords, using: &generator)
            let delta = newText.utf8.count - oldText.utf8.count
            let newRuns = oldRuns.records(in: 0..<prefix) + ListRecords(Array(newRecords[prefix..<(newRecords.count - suffix)]))
                + oldRuns.records(in: (oldRecords.count - suffix)..<oldRecords.count, shiftedBy: delta)
            #expect(newRuns.map(\.byteRange) == newRecords.map(\.byteRange))

            let expected = ChangesetEncoder.encode(
                StagedChangeset(source: old.sections, target: new.sections, knownEqualEnds: known), source: old, target: new)
            let changeset = StagedChangeset(middlesOf: oldRuns, to: newRuns, section: 0, knownEqualEnds: known)
            let line = ChangesetEncoder.encode(changeset, source: old, sourceRecords: oldRuns, target: new, targetRecords: newRuns)
            #expect(line == expected, "seed \(seed), round \(round): \(oldText.debugDescription) → \(newText.debugDescription), \(known)")
            if line != expected { return }
            // The last stage's data is the new version's runs themselves, not a copy.
            if let last = changeset.last {
                #expect(last.data.runs.map(\.storageAddress) == newRuns.runs.map(\.storageAddress))
            }
            if unique && prefix + suffix > 0 && !changeset.isEmpty { sawMiddles += 1 }
        }
        #expect(sawMiddles > 100, "too few rounds diffed the middles alone")
    }
}
