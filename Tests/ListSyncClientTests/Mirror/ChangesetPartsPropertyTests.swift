import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol
import PropertyBased
import Testing

/// A changeset line cut into parts (``ChangesetParts``) and the parts, decoded as a client gets
/// them, put back together (``ChangesetPartAssembly``): the same changeset, whose encoding is the
/// original line byte for byte — for random stages of every kind (inserted sections cut between
/// their records, strings full of JSON syntax), and a tiny bound so that most lines cut often.
@Suite struct ChangesetPartsPropertyTests {
    static let changesets = Generator<ChangesetMessage, Shrink.None<ChangesetMessage>> { rng in
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        func text() -> String {
            let pieces = ["a", "é", "\"", "\\", "]", "}", ",", "{", "[", ":", "\n", "\u{1}", "records", "\"records\":["]
            return (0..<int(0...4)).map { _ in pieces[int(0...(pieces.count - 1))] }.joined()
        }
        func value(depth: Int = 0) -> ListValue {
            switch int(0...(depth > 2 ? 3 : 5)) {
            case 0: return .null
            case 1: return .bool(int(0...1) == 1)
            case 2: return .number(["0", "-1.5e3", "12", "3.0"][int(0...3)])
            case 3: return .string(text())
            case 4: return .array((0..<int(0...3)).map { _ in value(depth: depth + 1) })
            // Member names unique in their object, as a decoder requires.
            default: return .object((0..<int(0...3)).map { ListValue.Member(name: text() + "\($0)", value: value(depth: depth + 1)) })
            }
        }
        func hash() -> ContentHash { ContentHash(low: UInt64.random(in: 0...UInt64.max, using: &rng), high: UInt64.random(in: 0...UInt64.max, using: &rng)) }
        func record() -> ChangesetStage.Record { ChangesetStage.Record(value: value(), hash: hash()) }
        func path() -> ElementPath { ElementPath(element: int(0...50), section: int(0...5)) }
        func many<T>(_ make: () -> T) -> [T] { int(0...3) == 0 ? [] : (0..<int(1...6)).map { _ in make() } }
        let keyed = int(0...1) == 1
        func key() -> ChangesetStage.RecordKey { [.string(text())] }
        func placed() -> ChangesetStage.PlacedRecord { ChangesetStage.PlacedRecord(path: path(), record: record(), key: keyed ? key() : nil) }
        let stages = (0..<int(0...5)).map { _ in
            let deleted = many(path)
            let moved = many { ChangesetStage.Move(source: path(), target: path()) }
            return ChangesetStage(
                sectionDeleted: many { int(0...9) },
                // Distinct indices, as in a stage (ListDiff inserts a section at one index once).
                sectionInserted: many { () -> Int in int(0...4) }.enumerated().map { offset, gap in
                    ChangesetStage.InsertedSection(
                        index: offset * 5 + gap, section: ChangesetStage.Section(model: value(), hash: hash()),
                        records: int(0...2) == 0 ? [] : (0..<int(1...12)).map { _ in record() })
                },
                sectionMoved: many { ChangesetStage.Move(source: int(0...9), target: int(0...9)) },
                sectionUpdated: many { ChangesetStage.UpdatedSection(index: int(0...9), section: ChangesetStage.Section(model: value(), hash: hash())) },
                elementDeleted: deleted, elementInserted: many(placed), elementUpdated: many(placed), elementMoved: moved,
                elementDeletedKeys: keyed ? deleted.map { _ in key() } : [], elementMovedKeys: keyed ? moved.map { _ in key() } : [])
        }.filter { Self.units(of: $0) > 0 }  // the encoder leaves empty stages out
        let seq = UInt64(int(1...1000))
        let schema = int(0...1) == 1
            ? SchemaUpdate(schema: ListSchema(columns: ["id", text()]), change: SchemaChange(added: [text()], removed: [], renamed: [], reordered: []))
            : nil
        return ChangesetMessage(
            watch: "w" + text(), cursor: Cursor(epoch: Epoch(rawValue: 0x5f0c_2a4e_19b7_d3a8), seq: seq), prevSeq: seq - 1, stages: stages,
            digest: ListDigest(String(repeating: "ab", count: 32))!, schema: schema)
    }

    @Test func splittingThenAssemblingGivesTheLineByteForByte() async {
        await propertyCheck(count: 250, input: Self.changesets, Gen.int(in: 1...600)) { changeset, bound in
            #expect(throws: Never.self) { try Self.roundTrip(changeset, bound: bound) }
        }
    }

    /// A line cut at `bound`: each part a `changeset` part message within the bound but for its
    /// last entry, and together the line.
    static func roundTrip(_ changeset: ChangesetMessage, bound: Int) throws {
        let line = ServerMessage.changeset(changeset).encoded()
        // At a bound of one byte every entry closes a part: as many parts as entries (a line of
        // one entry, or none, goes whole).
        let units = Self.parts(of: changeset)
        #expect((ChangesetParts.split(line, targetSize: 1)?.count ?? 1) == max(1, units))
        guard let parts = ChangesetParts.split(line, targetSize: bound) else {
            // Whole: within the bound, or only the last entry crosses it (then one part would be the line).
            return
        }
        #expect(parts.count >= 2)
        let largestEntry = ChangesetEncoder.encode(changeset.stages).count
        var assembly = ChangesetPartAssembly(maximumBytes: 1 << 30)
        var whole: ChangesetMessage?
        for (number, bytes) in parts.enumerated() {
            #expect(bytes.last == UInt8(ascii: "\n") && !bytes.dropLast().contains(UInt8(ascii: "\n")))
            #expect(bytes.count <= bound + largestEntry + 512)
            guard case .changesetPart(let part) = try #require(try MessageParser.serverMessage(ofLine: bytes.dropLast())) else {
                Issue.record("part \(number) is not a changeset part: \(String(decoding: bytes, as: UTF8.self))")
                return
            }
            #expect(part.part == number && part.last == (number == parts.count - 1))
            #expect(ServerMessage.changesetPart(part).encoded() == bytes, "a part is laid out as its message encodes")
            whole = try assembly.add(part)
            #expect((whole != nil) == part.last)
        }
        let assembled = try #require(whole)
        #expect(assembled == changeset)
        #expect(ServerMessage.changeset(assembled).encoded() == line)
    }

    /// How many units a changeset has to cut between: entries, and records of inserted sections.
    static func parts(of changeset: ChangesetMessage) -> Int {
        changeset.stages.reduce(0) { $0 + Self.units(of: $1) }
    }

    static func units(of stage: ChangesetStage) -> Int {
            stage.sectionDeleted.count + stage.sectionInserted.reduce(0) { $0 + max(1, $1.records.count) } + stage.sectionMoved.count
                + stage.sectionUpdated.count + stage.elementDeleted.count + stage.elementInserted.count + stage.elementUpdated.count
                + stage.elementMoved.count + stage.elementDeletedKeys.count + stage.elementMovedKeys.count
    }

    /// A part that skips one, or one of another changeset, is a gap; the assembly then starts over.
    @Test func aMissingPartIsAGap() throws {
        let records = (0..<8).map { ChangesetStage.Record(value: .string("row \($0)"), hash: ContentHash(low: UInt64($0), high: 1)) }
        let changeset = ChangesetMessage(
            watch: "w", cursor: Cursor(epoch: Epoch(rawValue: 1), seq: 2), prevSeq: 1,
            stages: [ChangesetStage(elementInserted: records.enumerated().map { ChangesetStage.PlacedRecord(path: ElementPath(element: $0.offset, section: 0), record: $0.element) })],
            digest: ListDigest(String(repeating: "0f", count: 32))!, schema: nil)
        let line = ServerMessage.changeset(changeset).encoded()
        let parts = try #require(ChangesetParts.split(line, targetSize: 1)).map { bytes throws in
            guard case .changesetPart(let part) = try MessageParser.serverMessage(ofLine: bytes.dropLast()) else { throw ChangesetPartError(cursor: Cursor(epoch: Epoch(rawValue: 1), seq: 2), part: -1, reason: "not a part") }
            return part
        }
        #expect(parts.count >= 3)
        var assembly = ChangesetPartAssembly(maximumBytes: 1 << 30)
        _ = try assembly.add(parts[0])
        #expect { try assembly.add(parts[2]) } throws: { ($0 as? ChangesetPartError)?.reason == "part 1 is missing" }
        #expect(assembly.isEmpty)
        #expect { try assembly.add(parts[1]) } throws: { ($0 as? ChangesetPartError)?.reason == "part 0 is missing" }
        var bounded = ChangesetPartAssembly(maximumBytes: parts[0].lineLength)
        _ = try bounded.add(parts[0])
        #expect { try bounded.add(parts[1]) } throws: { ($0 as? ChangesetPartError)?.reason.contains("exceed") == true }
        #expect(MirrorError.partsOutOfOrder(cursor: changeset.cursor, part: 1, reason: "").recovery == .resume, "a lost part is resumed from the cursor")
    }
}
