import ListDiff
@testable import ListFormats
import ListSyncProtocol
import Foundation
import ListSyncTestSupport
import Testing

/// The version 2 digest: the tree the daemon updates version by version gives, byte for byte,
/// the digest a client computes from the whole list, after every edit of random sequences.
@Suite struct ListDigestTreeTests {
    typealias Sections = [ArraySection<SectionModel, ListRecord>]

    typealias Generator = SplitMix

    /// A record whose content is one of `distinct` values, so duplicates are common.
    static func record(_ generator: inout Generator, distinct: UInt64 = 5_000) -> ListRecord {
        let value = generator.next() % distinct
        let hash = ContentHash(low: value &* 0x9E37_79B9_7F4A_7C15 ^ 0x1234, high: value &+ 0xABCD)
        return ListRecord(start: 0, end: 0, identity: RecordIdentity(hash: hash), content: hash)
    }

    /// The digest computed from scratch, as a client computes it.
    static func scratch(_ schema: ListSchema, _ sections: Sections) -> ListDigest {
        var builder = ListDigest.Builder(schema: schema, version: .v2)
        for section in sections {
            builder.beginSection(modelHash: section.model.contentHash, recordCount: section.elements.count)
            for record in section.elements { builder.addRecord(record.contentHash) }
        }
        return builder.finish()
    }

    /// One random edit of `records`: inserts, deletes, moves, updates, duplicates, appends,
    /// truncations, and now and then emptying the list.
    static func edit(_ records: inout [ListRecord], _ generator: inout Generator) {
        let count = records.count
        let at = count == 0 ? 0 : Int(generator.next() % UInt64(count + 1))
        let run = 1 + Int(generator.next() % 200)
        switch generator.next() % 9 {
        case 0:  // insert a run
            records.insert(contentsOf: (0..<run).map { _ in Self.record(&generator) }, at: at)
        case 1:  // delete a run
            records.removeSubrange(at..<min(count, at + run))
        case 2:  // move a run
            let moved = Array(records[at..<min(count, at + run)])
            records.removeSubrange(at..<min(count, at + run))
            let to = records.isEmpty ? 0 : Int(generator.next() % UInt64(records.count + 1))
            records.insert(contentsOf: moved, at: to)
        case 3:  // update scattered records (both ends, so the shared ends are short)
            for _ in 0..<(1 + run / 20) where !records.isEmpty {
                records[Int(generator.next() % UInt64(records.count))] = Self.record(&generator)
            }
        case 4:  // duplicate a run
            records.insert(contentsOf: Array(records[at..<min(count, at + run)]), at: at)
        case 5:  // append
            records.append(contentsOf: (0..<run).map { _ in Self.record(&generator) })
        case 6:  // truncate
            records.removeLast(min(count, run))
        case 7:  // one record updated
            if !records.isEmpty { records[min(at, count - 1)] = Self.record(&generator) }
        default:
            if generator.next() % 10 == 0 { records.removeAll() } else { records.insert(Self.record(&generator), at: at) }
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func linearUpdatesEqualScratch(seed: UInt64) {
        var generator = Generator(seed: seed)
        let schema = ListSchema(columns: ["id", "name"])
        var records = (0..<(seed == 1 ? 0 : 30_000)).map { _ in Self.record(&generator) }
        var sections: Sections = [ArraySection(model: SectionModel(value: .null), elements: records)]
        var tree = ListDigestTree(schema: schema, sections: sections)
        #expect(tree.digest == Self.scratch(schema, sections))
        for step in 0..<150 {
            Self.edit(&records, &generator)
            let next: Sections = [ArraySection(model: SectionModel(value: .null), elements: records)]
            tree = tree.updated(schema: schema, from: sections, to: next)
            sections = next
            let expected = Self.scratch(schema, sections)
            #expect(tree.digest == expected, "seed \(seed), step \(step), \(records.count) records")
            if tree.digest != expected { return }
        }
        // The tree of the final list built afresh has the same digest too.
        #expect(ListDigestTree(schema: schema, sections: sections).digest == tree.digest)
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func sectionedUpdatesEqualScratch(seed: UInt64) {
        var generator = Generator(seed: seed)
        var schema = ListSchema(columns: ["sku"])
        var lists: [(model: String, records: [ListRecord])] = (0..<20).map { index in
            ("section \(index)", (0..<Int(generator.next() % 2_000)).map { _ in Self.record(&generator) })
        }
        func sections() -> Sections {
            lists.map { ArraySection(model: SectionModel(value: .string($0.model)), elements: $0.records) }
        }
        var current = sections()
        var tree = ListDigestTree(schema: schema, sections: current)
        for step in 0..<150 {
            switch generator.next() % 6 {
            case 0:
                lists.insert(("new \(step)", (0..<Int(generator.next() % 300)).map { _ in Self.record(&generator) }), at: Int(generator.next() % UInt64(lists.count + 1)))
            case 1 where !lists.isEmpty:
                lists.remove(at: Int(generator.next() % UInt64(lists.count)))
            case 2 where !lists.isEmpty:
                lists[Int(generator.next() % UInt64(lists.count))].model = "renamed \(step)"
            case 3:
                schema = ListSchema(columns: step % 2 == 0 ? ["sku"] : ["sku", "price"])
            case 4 where generator.next() % 8 == 0:
                lists.removeAll()
            default:
                if !lists.isEmpty {
                    let index = Int(generator.next() % UInt64(lists.count))
                    Self.edit(&lists[index].records, &generator)
                }
            }
            let next = sections()
            tree = tree.updated(schema: schema, from: current, to: next)
            current = next
            let expected = Self.scratch(schema, current)
            #expect(tree.digest == expected, "seed \(seed), step \(step)")
            if tree.digest != expected { return }
        }
    }

    /// The Python example client's `list_digest_v2` (the reference snippet of docs/PROTOCOL.md)
    /// gives the digest the daemon's tree gives: lists of every shape, one over several nodes.
    @Test func matchesThePythonClient() async throws {
        var generator = Generator(seed: 21)
        let cases: [(columns: [String], sections: Sections)] = [
            ([], []),
            (["id"], [ArraySection(model: SectionModel(value: .null), elements: [ListRecord]())]),
            (["id", "名前"], [ArraySection(model: SectionModel(value: .null), elements: (0..<20_000).map { _ in Self.record(&generator) })]),
            (["sku"], (0..<12).map { index in
                ArraySection(model: SectionModel(value: .string("s\(index)")), elements: (0..<(index * 300)).map { _ in Self.record(&generator) })
            }),
        ]
        let script = """
            import json, sys
            sys.path.insert(0, sys.argv[2])
            from mirror import list_digest_v2
            data = json.load(open(sys.argv[1]))
            print(list_digest_v2(data["columns"], data["sections"]))
            """
        for (columns, sections) in cases {
            let tree = ListDigestTree(schema: ListSchema(columns: columns), sections: sections)
            let input: [String: Any] = [
                "columns": columns,
                "sections": sections.map { section in
                    ["hash": section.model.contentHash.description, "records": section.elements.map { ["hash": $0.contentHash.description] }] as [String: Any]
                },
            ]
            let python = try await Python.output(
                of: script.replacingOccurrences(of: "sys.argv[2]", with: "\"\(RepositoryFiles.path("examples/python"))\""), input: input,
                passing: .fileArgument)
            #expect(python.trimmingCharacters(in: .whitespacesAndNewlines) == tree.digest.description)
        }
    }

    /// Version 2 is not version 1, even for an empty list.
    @Test func differsFromVersion1() {
        let schema = ListSchema(columns: ["id"])
        for sections in [[], [ArraySection(model: SectionModel(value: .null), elements: [ListRecord]())]] as [Sections] {
            var v1 = ListDigest.Builder(schema: schema)
            for section in sections { v1.beginSection(modelHash: section.model.contentHash, recordCount: 0) }
            #expect(v1.finish() != Self.scratch(schema, sections))
        }
    }
}
