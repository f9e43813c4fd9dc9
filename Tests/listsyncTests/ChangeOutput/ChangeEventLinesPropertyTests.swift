import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol
import PropertyBased
import Testing
import ListSyncTestSupport
@testable import listsync

/// `--format events` keeps per-identity record counts so that a changeset costs the records it
/// touches; without counts (``ChangeEventLines`` before a snapshot or `hold`) it finds every
/// identity it touches in the whole lists. On random lists and random edits, the two print the
/// same lines at every changeset.
@Suite struct ChangeEventLinesPropertyTests {
    /// A record of the list, `{"id":…,"group":…,"v":…}`: `id` is the key (or without a key part
    /// of the content), `group` the section.
    typealias Record = (id: Int, group: String, v: Int)

    /// One random change of a version: `kind` says which, the other numbers pick positions,
    /// keys, sections and values.
    struct Step: Sendable {
        let kind: Int
        let a: Int
        let b: Int
        let c: Int
    }

    /// One version after the previous one: whether (and which of its sections, to which unused
    /// name) a section is renamed first, then the steps.
    struct Version: Sendable {
        let rename: (section: Int, name: Int)?
        let steps: [Step]
    }

    /// The section names; fewer are in use at a time, so that new and renamed sections find one.
    static let groups = ["a", "b", "c", "d", "e", "f", "g", "h"]

    static let versions = Generator<([Record], [Version]), Shrink.None<([Record], [Version])>> { rng in
        let first = (0..<Int.random(in: 0...12, using: &rng)).map { _ in
            (id: Int.random(in: 0..<6, using: &rng), group: groups[Int.random(in: 0..<4, using: &rng)], v: Int.random(in: 0..<3, using: &rng))
        }
        let versions = (0..<Int.random(in: 1...8, using: &rng)).map { _ in
            Version(
                rename: Int.random(in: 0..<4, using: &rng) == 0 ? (Int.random(in: 0..<8, using: &rng), Int.random(in: 0..<8, using: &rng)) : nil,
                steps: (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                    Step(kind: Int.random(in: 0..<9, using: &rng), a: Int.random(in: 0..<1000, using: &rng), b: Int.random(in: 0..<1000, using: &rng), c: Int.random(in: 0..<1000, using: &rng))
                })
        }
        return (first, versions)
    }

    @Test func eventsFromCountsEqualEventsFromTheWholeLists() async {
        await propertyCheck(count: 300, input: Self.versions, Gen.bool, Gen.bool, Gen.bool) { scenario, sectioned, keyed, restored in
            #expect(throws: Never.self) {
                try Self.compare(first: scenario.0, versions: scenario.1, sectioned: sectioned, key: keyed ? ["id"] : [], restored: restored)
            }
        }
    }

    /// Publishes `first` then each of `versions`, and feeds every changeset to an events output
    /// that holds counts — from the snapshot, or when `restored` from `hold` as a client resumed
    /// from its state — and to one that holds none: their lines must be equal but for `ts_ms`.
    static func compare(first: [Record], versions: [Version], sectioned: Bool, key: [String], restored: Bool) throws {
        let fields = try key.map { field throws in try FieldPath(parsing: field) }
        var fast = ChangeEventLines(watch: Versions.watch, key: fields, file: nil)
        var full = ChangeEventLines(watch: Versions.watch, key: fields, file: nil)
        var records = first
        var list = try Self.read(records, sectioned: sectioned, key: key)
        var sections = try Versions.mirror(of: list, seq: 0).sections
        if restored {
            fast.hold(sections)
        } else {
            _ = fast.snapshot(sections, sectioned: sectioned, cursor: Cursor(epoch: Versions.epoch, seq: 0))
        }
        for (number, version) in versions.enumerated() {
            let seq = UInt64(number + 1)
            var stages: [ChangesetStage] = []
            var source = list
            let renamed = version.rename.flatMap { Self.rename(&records, $0) }
            if let renamed, sectioned {
                // The daemon's diff never renames a section (a new name is a new section), but
                // the protocol allows it: a stage that renames it, one that updates its records'
                // `group`, then the steps from the list renamed.
                source = try Self.read(records, sectioned: sectioned, key: key)
                let section = try Versions.mirror(of: source, seq: seq).sections[renamed.section]
                stages.append(ChangesetStage(sectionUpdated: [.init(index: renamed.section, section: section.model)]))
                stages.append(ChangesetStage(elementUpdated: section.records.enumerated().map { element, record in
                    .init(path: ElementPath(element: element, section: renamed.section), record: record)
                }))
            }
            for step in version.steps { Self.apply(step, to: &records) }
            let next = try Self.read(records, sectioned: sectioned, key: key)
            stages += try Versions.changeset(from: source, to: next, seq: seq).stages
            let edits = try ListEdit.edits(of: stages, from: sections, sectioned: sectioned)
            var after = sections
            for (number, stage) in stages.enumerated() { try stage.apply(to: &after, number: number) }
            #expect(after == (try Versions.mirror(of: next, seq: seq).sections), "the stages do not make the version")
            let cursor = Cursor(epoch: Versions.epoch, seq: seq)
            let expected = Self.text(full.changeset(edits, from: sections, to: after, sectioned: sectioned, cursor: cursor))
            let got = Self.text(fast.changeset(edits, from: sections, to: after, sectioned: sectioned, cursor: cursor))
            #expect(got == expected, "changeset \(seq) of \(first) → \(versions.prefix(number + 1)), sectioned: \(sectioned), key: \(key)")
            sections = after
            list = next
        }
    }

    /// Renames the section of `records` numbered `rename.section` (modulo those in use), in
    /// order of first appearance, to the unused name numbered `rename.name` (modulo those unused):
    /// its index and new name; `nil` when there is no section.
    static func rename(_ records: inout [Record], _ rename: (section: Int, name: Int)) -> (section: Int, name: String)? {
        var used: [String] = []
        for record in records where !used.contains(record.group) { used.append(record.group) }
        let unused = Self.groups.filter { !used.contains($0) }
        guard !used.isEmpty, !unused.isEmpty else { return nil }
        let section = rename.section % used.count
        let name = unused[rename.name % unused.count]
        for index in records.indices where records[index].group == used[section] { records[index].group = name }
        return (section, name)
    }

    /// `step` done to `records`: inserts, deletes, moves, a changed value, key or section, a
    /// repeated record (a repeated key, or without a key an identical row), a section deleted or
    /// added.
    static func apply(_ step: Step, to records: inout [Record]) {
        let random = (id: step.b % 6, group: Self.groups[step.c % 5], v: step.c % 3)
        guard !records.isEmpty || step.kind == 0 || step.kind == 8 else { return }
        let at = records.isEmpty ? 0 : step.a % records.count
        switch step.kind {
        case 0: records.insert(random, at: step.a % (records.count + 1))
        case 1: records.remove(at: at)
        case 2:
            let moved = records.remove(at: at)
            records.insert(moved, at: step.b % (records.count + 1))
        case 3: records[at].v = random.v
        case 4: records[at].id = random.id
        case 5: records[at].group = random.group
        case 6: records.insert(records[at], at: step.b % (records.count + 1))
        case 7:
            let group = records[at].group
            records.removeAll { $0.group == group }
        default:
            let unused = Self.groups.filter { group in !records.contains { $0.group == group } }
            guard let group = unused.first else { return }
            let added = (0...(step.c % 3)).map { (id: (step.b + $0) % 6, group: group, v: $0 % 3) }
            records.insert(contentsOf: added, at: step.a % (records.count + 1))
        }
    }

    static func read(_ records: [Record], sectioned: Bool, key: [String]) throws -> ParsedList {
        try Versions.read(Versions.json(records.map { ($0.id, $0.group, $0.v) }), sectioned: sectioned, key: key)
    }

    /// `lines` as text, every `ts_ms` (the time they were made) 0.
    static func text(_ lines: [UInt8]) -> String {
        String(decoding: lines, as: UTF8.self).replacing(#/"ts_ms":[0-9]+/#, with: #""ts_ms":0"#)
    }
}
