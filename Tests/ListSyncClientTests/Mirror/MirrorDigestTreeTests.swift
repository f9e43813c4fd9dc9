import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

@testable import ListSyncClient

/// A mirror at protocol version 2 checks each changeset's digest with its ``ListDigestTree``,
/// updated only between the items the changeset's stages left alone (``DigestChangeSpan``): the
/// result must be the digest computed from scratch, at every version.
@Suite struct MirrorDigestTreeTests {
    /// Random versions of a list, linear or sectioned — records inserted, deleted, updated, moved
    /// within and across sections, sections appearing, vanishing and reordered — each applied as
    /// a changeset whose digest is the daemon's from-scratch version 2 digest.
    @Test(arguments: [false, true], [1, 2, 3, 4] as [UInt64])
    func incrementalDigestEqualsTheDigestFromScratch(sectioned: Bool, seed: UInt64) throws {
        var generator = SplitMix(seed: seed)
        var versions: [ParsedList] = []
        // Many records, so leaves (about 64 items each) and several nodes are involved; each
        // version makes one kind of edit, so most of the list is shared and the span matters.
        var ids = Array(0..<600)
        var values: [Int: Int] = [:]
        var groups = ["a", "b", "c", "d", "e"]
        for _ in 0..<40 {
            switch generator.next() % 7 {
            case 0: ids.removeAll { _ in generator.next() % 100 == 0 }
            case 1:
                let id = 1_000 + Int(generator.next() % 10_000)
                let place = Int(generator.next() % UInt64(ids.count + 1))
                if !ids.contains(id) { ids.insert(id, at: place) }
            case 2 where !ids.isEmpty:
                let moved = ids.remove(at: Int(generator.next() % UInt64(ids.count)))
                let place = Int(generator.next() % UInt64(ids.count + 1))
                ids.insert(moved, at: place)
            case 3 where !ids.isEmpty:
                values[ids[Int(generator.next() % UInt64(ids.count))], default: 0] += 1
            case 4 where generator.next() % 3 == 0:
                groups = ["a", "b", "c", "d", "e"].filter { _ in generator.next() % 4 != 0 }
            case 5 where generator.next() % 4 == 0: ids.shuffle(using: &generator)
            default: break
            }
            let records = ids.map { id in (id, groups.isEmpty ? "a" : groups[id % groups.count], values[id] ?? 0) }
            versions.append(try Versions.read(Versions.json(records), sectioned: sectioned))
        }
        var mirror = try Versions.mirror(of: versions[0], seq: 0, digestVersion: .v2)
        for (seq, (old, new)) in zip(versions, versions.dropFirst()).enumerated() {
            let changeset = try Versions.changeset(from: old, to: new, seq: UInt64(seq + 1), digestVersion: .v2)
            try mirror.apply(changeset)
            guard case .list(let content) = mirror.basis else { throw TestFailure("the mirror holds no list") }
            // The tree was used (not the from-scratch builder) and gives the daemon's digest.
            let tree = try #require(content.tree)
            #expect(tree.digest == ListDigest(of: new, version: .v2), "version \(seq + 1)")
            #expect(tree.digest == ListDigestTree(schema: new.schema, digestSections: mirror.sections).digest)
        }
    }

    /// A one-record update, or one record moved, in a 5,000-record list names only the items
    /// between as changed: the tree rehashes a leaf or two and a node, not the list.
    @Test(arguments: [false, true]) func aOneRecordChangeNamesOneItem(moved: Bool) throws {
        let records = (0..<5_000).map { ($0, "a", $0) }
        var edited = records
        if moved {
            edited.insert(edited.remove(at: 2_500), at: 2_510)
        } else {
            edited[2_500].2 = -1
        }
        let old = try Versions.read(Versions.json(records))
        let new = try Versions.read(Versions.json(edited))
        let changeset = try Versions.changeset(from: old, to: new, seq: 1, digestVersion: .v2)
        var sections = try Versions.mirror(of: old, seq: 0, digestVersion: .v2).sections
        var span = DigestChangeSpan()
        for stage in changeset.stages {
            let before = DigestChangeSpan.recordCounts(of: sections)
            try stage.apply(to: &sections)
            span.note(stage, sourceCounts: before, targetCounts: DigestChangeSpan.recordCounts(of: sections))
        }
        // Item 0 is the section's own; the record at 2,500 is item 2,501 of 5,001 (moved, it
        // lands at item 2,511; ListDiff may name the ten it passed instead of it).
        #expect(span.sharedPrefix == 2_501)
        #expect(span.sharedSuffix == 5_001 - 1 - (moved ? 2_511 : 2_501))
    }
}
