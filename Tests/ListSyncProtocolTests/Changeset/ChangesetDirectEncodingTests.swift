import ListDiff
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// The changeset encoding is written straight into the bytes (``ChangesetEncoder/encode(_:)-([ChangesetStage])``),
/// with no `ListValue` tree of the changeset: its bytes are exactly those of the tree the protocol
/// describes (docs/PROTOCOL.md, *Changeset encoding*) written as compact JSON, and decode back
/// to the same stages.
@Suite struct ChangesetDirectEncodingTests {
    @Test func randomStagesEncodeAsTheirTreeWritesAndDecodeBack() throws {
        var rng = SplitMix(seed: 0x5eed_1419)
        for round in 0..<600 {
            let stages = (0..<Int.random(in: 0...3, using: &rng)).map { _ in Self.stage(using: &rng) }
            var expected: [UInt8] = []
            JSONText.append(.array(stages.map(Self.tree)), to: &expected)
            let encoded = ChangesetEncoder.encode(stages)
            #expect(encoded == expected, "round \(round): \(String(decoding: encoded, as: UTF8.self)) against \(String(decoding: expected, as: UTF8.self))")
            #expect(try ChangesetDecoder.decode(encoded) == stages, "round \(round)")
            for stage in stages {
                var one: [UInt8] = []
                JSONText.append(Self.tree(stage), to: &one)
                #expect(ChangesetEncoder.encode(stage) == one)
            }
        }
    }

    // MARK: The reference: the encoding as a tree of values, member by member as PROTOCOL.md lists them.

    static func tree(_ stage: ChangesetStage) -> ListValue {
        var members: [ListValue.Member] = []
        func add(_ name: String, _ elements: [ListValue]) {
            if !elements.isEmpty { members.append(ListValue.Member(name: name, value: .array(elements))) }
        }
        func integer(_ value: Int) -> ListValue { .number(String(value)) }
        func path(_ path: ElementPath) -> ListValue { .array([integer(path.section), integer(path.element)]) }
        func record(_ record: ChangesetStage.Record) -> [ListValue.Member] {
            [ListValue.Member(name: "hash", value: .string(record.hash.description)), ListValue.Member(name: "value", value: record.value)]
        }
        func section(_ section: ChangesetStage.Section) -> [ListValue.Member] {
            [ListValue.Member(name: "model", value: section.model), ListValue.Member(name: "hash", value: .string(section.hash.description))]
        }
        func placed(_ placed: ChangesetStage.PlacedRecord) -> ListValue {
            .object(
                [ListValue.Member(name: "at", value: path(placed.path))]
                    + (placed.key.map { [ListValue.Member(name: "key", value: .array($0))] } ?? []) + record(placed.record))
        }
        add("section_deleted", stage.sectionDeleted.map(integer))
        add("section_inserted", stage.sectionInserted.map { inserted in
            .object(
                [ListValue.Member(name: "index", value: integer(inserted.index))] + section(inserted.section)
                    + [ListValue.Member(name: "records", value: .array(inserted.records.map { .object(record($0)) }))])
        })
        add("section_moved", stage.sectionMoved.map { .array([integer($0.source), integer($0.target)]) })
        add("section_updated", stage.sectionUpdated.map { .object([ListValue.Member(name: "index", value: integer($0.index))] + section($0.section)) })
        add("element_deleted", stage.elementDeleted.map(path))
        add("element_inserted", stage.elementInserted.map(placed))
        add("element_updated", stage.elementUpdated.map(placed))
        add("element_moved", stage.elementMoved.map { .array([path($0.source), path($0.target)]) })
        add("element_deleted_keys", stage.elementDeletedKeys.map(ListValue.array))
        add("element_moved_keys", stage.elementMovedKeys.map(ListValue.array))
        return .object(members)
    }

    // MARK: Random stages

    private static func stage(using rng: inout SplitMix) -> ChangesetStage {
        func some<T>(_ make: (inout SplitMix) -> T) -> [T] {
            (0..<(Int.random(in: 0...4, using: &rng) == 0 ? Int.random(in: 1...3, using: &rng) : 0)).map { _ in make(&rng) }
        }
        func index(_ rng: inout SplitMix) -> Int { Int.random(in: 0...1_000, using: &rng) }
        func path(_ rng: inout SplitMix) -> ElementPath { ElementPath(element: index(&rng), section: index(&rng)) }
        func record(_ rng: inout SplitMix) -> ChangesetStage.Record {
            let value = Self.value(depth: 0, using: &rng)
            return ChangesetStage.Record(value: value, hash: value.contentHash)
        }
        func section(_ rng: inout SplitMix) -> ChangesetStage.Section {
            let model = Self.value(depth: 1, using: &rng)
            return ChangesetStage.Section(model: model, hash: model.contentHash)
        }
        func key(_ rng: inout SplitMix) -> ChangesetStage.RecordKey {
            (0..<Int.random(in: 1...2, using: &rng)).map { _ in Self.value(depth: 2, using: &rng) }
        }
        func placed(_ rng: inout SplitMix) -> ChangesetStage.PlacedRecord {
            ChangesetStage.PlacedRecord(path: path(&rng), record: record(&rng), key: Bool.random(using: &rng) ? key(&rng) : nil)
        }
        return ChangesetStage(
            sectionDeleted: some(index),
            sectionInserted: some { rng in
                ChangesetStage.InsertedSection(
                    index: index(&rng), section: section(&rng), records: (0..<Int.random(in: 0...2, using: &rng)).map { _ in record(&rng) })
            },
            sectionMoved: some { rng in ChangesetStage.Move(source: index(&rng), target: index(&rng)) },
            sectionUpdated: some { rng in ChangesetStage.UpdatedSection(index: index(&rng), section: section(&rng)) },
            elementDeleted: some(path), elementInserted: some(placed), elementUpdated: some(placed),
            elementMoved: some { rng in ChangesetStage.Move(source: path(&rng), target: path(&rng)) },
            elementDeletedKeys: some(key), elementMovedKeys: some(key))
    }

    /// A value with strings that need escapes, numbers, nesting.
    private static func value(depth: Int, using rng: inout SplitMix) -> ListValue {
        let strings = ["", "plain", "quote \" and \\ back", "line\nbreak\ttab", "é ✓ 𝄞", "\u{01}control"]
        switch Int.random(in: 0...(depth >= 2 ? 3 : 5), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(["0", "-12", "3.25", "1e10"][Int.random(in: 0...3, using: &rng)])
        case 3: return .string(strings[Int.random(in: 0..<strings.count, using: &rng)])
        case 4: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in value(depth: depth + 1, using: &rng) })
        default:
            return .object((0..<Int.random(in: 0...3, using: &rng)).map { index in
                ListValue.Member(name: strings[index % strings.count] + "\(index)", value: value(depth: depth + 1, using: &rng))
            })
        }
    }
}
