import Foundation
import Glibc
import ListFormats
import ListSyncTestSupport
import PropertyBased
import Testing
@testable import listsync

/// `listsync diff` tells the engine when neither list repeats an identity (the readers' duplicate
/// counts), which then pairs the records in step instead of through a table over the old list.
/// On random pairs of files — CSV, TSV, JSON arrays and NDJSON; keyed or by content; linear or
/// sectioned; quoted fields, repeated keys, inserts, deletes, moves, updates, changed keys — the
/// comparison and both outputs (`--format ndjson` and `human`) are byte for byte those of the
/// engine finding everything itself, from files read as `diff` reads them (mapped).
@Suite struct DiffUniquenessPropertyTests {
    /// A record: `id` (the key), `group` (the section with `--section-by group`), a text, a number.
    struct Row: Sendable {
        var id: Int
        var group: String
        var text: String
        var v: Int
    }

    /// Texts that CSV must quote, JSON must escape, and plain ones.
    static let texts = ["plain", "a,b", "say \"hi\"", "two\nlines", "é ü", "", "tab\there", "x"]
    static let groups = ["a", "b", "c"]

    /// One random change: `kind` says which, the numbers pick positions and values.
    struct Step: Sendable {
        let kind: Int
        let a: Int
        let b: Int
    }

    static let scenarios = Generator<([Row], [Step], Int), Shrink.None<([Row], [Step], Int)>> { rng in
        let count = Int.random(in: 0...40, using: &rng)
        // Mostly distinct keys; now and then one repeated, so that both engine paths are taken.
        let repeats = Int.random(in: 0..<4, using: &rng) == 0
        let rows = (0..<count).map { index in
            Row(
                id: repeats && Int.random(in: 0..<8, using: &rng) == 0 ? Int.random(in: 0..<max(index, 1), using: &rng) : index,
                group: groups[Int.random(in: 0..<groups.count, using: &rng)],
                text: texts[Int.random(in: 0..<texts.count, using: &rng)], v: Int.random(in: 0..<3, using: &rng))
        }
        let steps = (0..<Int.random(in: 0...10, using: &rng)).map { _ in
            Step(kind: Int.random(in: 0..<8, using: &rng), a: Int.random(in: 0..<1000, using: &rng), b: Int.random(in: 0..<1000, using: &rng))
        }
        return (rows, steps, Int.random(in: 0..<1000, using: &rng))
    }

    /// `step` done to `rows`: an insert (a new key), a delete, a move, a swap, an update of the
    /// text or the number, a changed key, a reversal of a stretch.
    static func apply(_ step: Step, to rows: inout [Row], nextID: inout Int) {
        guard !rows.isEmpty || step.kind == 0 else { return }
        let at = rows.isEmpty ? 0 : step.a % rows.count
        switch step.kind {
        case 0:
            nextID += 1
            rows.insert(Row(id: nextID, group: groups[step.b % groups.count], text: texts[step.a % texts.count], v: step.b % 3), at: step.a % (rows.count + 1))
        case 1: rows.remove(at: at)
        case 2:
            let moved = rows.remove(at: at)
            rows.insert(moved, at: step.b % (rows.count + 1))
        case 3: rows.swapAt(at, step.b % rows.count)
        case 4: rows[at].text = texts[step.b % texts.count]
        case 5: rows[at].v = step.b % 3
        case 6:
            nextID += 1
            rows[at].id = nextID
        default:
            let end = min(rows.count, at + step.b % 12)
            rows[at..<end].reverse()
        }
    }

    static let formats: [(name: String, format: ListFormat)] = [
        ("csv", .csv(delimiter: .comma)), ("tsv", .csv(delimiter: .tab)), ("json", .json), ("ndjson", .ndjson),
    ]

    @Test func theHintChangesNothing() async {
        await propertyCheck(count: 400, input: Self.scenarios) { rows, steps, pick in
            var target = rows
            var nextID = 10_000
            for step in steps { Self.apply(step, to: &target, nextID: &nextID) }
            let (name, format) = Self.formats[pick % Self.formats.count]
            let options = ReadOptions(
                format: format, key: pick / 4 % 3 == 0 ? [] : ["id"], sectionBy: pick / 12 % 2 == 0 ? nil : "group")
            #expect(throws: Never.self) {
                try Self.compare(rows, target, extension: name, options: options)
            }
        }
    }

    /// Writes both versions, diffs them with and without the hint, and compares.
    static func compare(_ source: [Row], _ target: [Row], extension name: String, options: ReadOptions) throws {
        let scratch = try ScratchDirectory(prefix: "diff-uniqueness")
        let oldPath = scratch.path + "/old." + name
        let newPath = scratch.path + "/new." + name
        try Data(Self.text(source, options.format).utf8).write(to: URL(fileURLWithPath: oldPath))
        try Data(Self.text(target, options.format).utf8).write(to: URL(fileURLWithPath: newPath))
        let old = try ListFile(path: oldPath, options: options, loading: .mapped)
        let new = try ListFile(path: newPath, options: options, loading: .mapped)
        let hinted = ListComparison(old: old, new: new)
        let full = ListComparison(old: old, new: new, tellsUniqueness: false)
        let context = "\(name) \(options.key) \(options.sectionBy ?? "-"): \(source) → \(target)"
        #expect(hinted.stages == full.stages, "\(context)")
        #expect(hinted.schemaChange == full.schemaChange, "\(context)")
        #expect(try Self.rendered(hinted, in: scratch) == Self.rendered(full, in: scratch), "\(context)")
    }

    /// Both outputs of `comparison`, as `diff` writes them (human plain, whole lines).
    static func rendered(_ comparison: ListComparison, in scratch: ScratchDirectory) throws -> [Data] {
        try [false, true].map { human in
            let path = scratch.path + "/out"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(descriptor >= 0)
            do {
                var output = OutputWriter(descriptor: descriptor)
                if human {
                    HumanDiffRenderer(
                        old: FileVersion(comparison.old), new: FileVersion(comparison.new), stages: comparison.stages,
                        schemaChange: comparison.schemaChange, style: .plain, width: nil
                    ).write(to: &output)
                } else {
                    NDJSONDiffRenderer(comparison: comparison).write(to: &output)
                }
                output.flush()
            }
            close(descriptor)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }

    /// `rows` as a file of `format`.
    static func text(_ rows: [Row], _ format: ListFormat) -> String {
        switch format {
        case .csv(let delimiter):
            let separator = delimiter == .tab ? "\t" : ","
            func field(_ value: String) -> String {
                value.contains(where: { $0 == "\"" || $0 == "\n" || $0 == "\r" || String($0) == separator })
                    ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
            }
            return (["id", "group", "text", "v"].joined(separator: separator) + "\n")
                + rows.map { [String($0.id), $0.group, field($0.text), String($0.v)].joined(separator: separator) + "\n" }.joined()
        case .json, .ndjson:
            func string(_ value: String) -> String {
                "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t") + "\""
            }
            let objects = rows.map { #"{"id":\#($0.id),"group":\#(string($0.group)),"text":\#(string($0.text)),"v":\#($0.v)}"# }
            return format == .ndjson ? objects.map { $0 + "\n" }.joined() : "[" + objects.joined(separator: ",\n") + "]\n"
        }
    }
}
