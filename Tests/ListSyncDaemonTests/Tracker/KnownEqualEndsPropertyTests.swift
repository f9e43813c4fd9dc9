import ListFormats
import ListSyncProtocol
import PropertyBased
import Synchronization
import Testing
@testable import ListSyncDaemon

/// The diff of a version read incrementally skips the records the reader kept at both ends
/// (`KnownEqualEnds`, issue 19 item 1): what it publishes — the changeset line, byte for byte,
/// its cursor and digest — is exactly what the full path publishes, a machine restored at the
/// same version that reads the whole file and diffs every record. Random edits of CSV (with CRLF,
/// a byte-order mark, quoted fields with line breaks that straddle chunks), TSV, NDJSON and JSON
/// arrays: a value changed in place, rows inserted, deleted, moved, appended, truncated, a key
/// repeated (duplicates: no uniqueness known), the header changed; chunks of 96 bytes, so that
/// every file has many.
@Suite struct KnownEqualEndsPropertyTests {
    /// An edit: its kind, and two picks of rows and values (the published-list tests' edits).
    typealias Edit = PublishedListPropertyTests.Edit

    /// Rows of (id, name, price); the name may hold a line break (quoted in CSV).
    struct Model {
        var rows: [(id: Int, name: String, price: Int)] = (0..<40).map { ($0, "item \($0)", $0 * 3) }
        var priceColumn = "price"
        var nextID = 40

        mutating func apply(_ edit: Edit) {
            let row = rows.isEmpty ? 0 : edit.a % rows.count
            switch edit.kind % 9 {
            case 0 where !rows.isEmpty:
                rows[row].price = edit.b % 100
            case 1:
                rows.insert((nextID, "new \(nextID)", edit.b % 100), at: rows.isEmpty ? 0 : edit.b % (rows.count + 1))
                nextID += 1
            case 2 where !rows.isEmpty:
                rows.remove(at: row)
            case 3 where rows.count > 1:
                rows.insert(rows.remove(at: row), at: edit.b % rows.count)
            case 4:
                for _ in 0...(edit.b % 12) {
                    rows.append((nextID, "tail \(nextID)", edit.b % 100))
                    nextID += 1
                }
            case 5 where !rows.isEmpty:
                rows.removeLast(min(rows.count, 1 + edit.b % 8))
            case 6 where rows.count > 1:
                // A key repeated (or, if already, the row given a fresh one).
                if rows[row].id == rows[edit.b % rows.count].id {
                    rows[row].id = nextID
                    nextID += 1
                } else {
                    rows[row].id = rows[edit.b % rows.count].id
                }
            case 7:
                priceColumn = priceColumn == "price" ? "cost" : "price"
            default:
                if !rows.isEmpty { rows[row].name = edit.b % 2 == 0 ? "two\nlines \(edit.b % 5)" : "one line \(edit.b % 5)" }
            }
        }

        func text(_ format: String) -> String {
            switch format {
            case "ndjson":
                return rows.map { #"{"id":\#($0.id),"name":\#(Self.json($0.name)),"\#(priceColumn)":\#($0.price)}"# + "\n" }.joined()
            case "json":
                return "[\n" + rows.map { #"  {"id":\#($0.id),"name":\#(Self.json($0.name)),"\#(priceColumn)":\#($0.price)}"# }.joined(separator: ",\n") + "\n]\n"
            case "tsv":
                return (["id\tname\t\(priceColumn)"] + rows.map { "\($0.id)\t\($0.name.replacingOccurrences(of: "\n", with: " "))\t\($0.price)" })
                    .joined(separator: "\n") + "\n"
            case "csv-crlf-bom":
                return "\u{FEFF}" + (["id,name,\(priceColumn)"] + rows.map { "\($0.id),\"\($0.name)\",\($0.price)" }).joined(separator: "\r\n") + "\r\n"
            default:
                return (["id,name,\(priceColumn)"] + rows.map { "\($0.id),\"\($0.name)\",\($0.price)" }).joined(separator: "\n") + "\n"
            }
        }

        static func json(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\n", with: "\\n") + "\""
        }
    }

    /// How many reads kept records at the ends, across the cases.
    final class Tally: Sendable {
        let count = Mutex(0)
    }

    static let edits = Gen.int(in: 0...8_999_999).map { Edit(kind: $0 % 9, a: $0 / 9 % 1000, b: $0 / 9000) }.array(of: 1...20)

    static func options(_ format: String) -> ReadOptions {
        switch format {
        case "ndjson": ReadOptions(format: .ndjson, key: ["id"])
        case "json": ReadOptions(format: .json, key: ["id"])
        case "tsv": ReadOptions(format: .csv(delimiter: .tab), key: ["id"])
        default: ReadOptions(format: .csv(delimiter: .comma), key: ["id"])
        }
    }

    /// A machine, with chunks of 96 bytes, that published `text` as its first version.
    static func machine(publishing text: String, options: ReadOptions) throws -> FileTracker.StateMachine {
        var machine = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7), chunkSize: 96)
        _ = try #require(machine.ingest(FileTrackerStateMachineTests.present(text), options: options)?.version)
        return machine
    }

    @Test(arguments: ["csv", "csv-crlf-bom", "tsv", "ndjson", "json"])
    func incrementalDiffPublishesWhatTheFullPathPublishes(format: String) async {
        let options = Self.options(format)
        let keptEnds = Tally()
        await propertyCheck(count: 60, input: Self.edits) { edits in
            #expect(throws: Never.self) {
                var model = Model()
                var machine = try Self.machine(publishing: model.text(format), options: options)
                for edit in edits {
                    model.apply(edit)
                    let text = model.text(format)
                    let before = try #require(machine.state.lastGood)
                    // The full path: restored at the same version, it reads the whole file.
                    var full = FileTracker.StateMachine(watch: "w", restoring: before, options: options, chunkSize: 96)
                    let expected = full.ingest(FileTrackerStateMachineTests.present(text), options: options)
                    let published = machine.ingest(FileTrackerStateMachineTests.present(text), options: options)
                    if let read = machine.lastRead, read.keptPrefixRecordCount + read.keptSuffixRecordCount > 0 {
                        keptEnds.count.withLock { $0 += 1 }
                    }
                    #expect(full.lastRead?.wasIncremental != true)
                    #expect(published?.changesetLine == expected?.changesetLine, "after \(edit)")
                    #expect(published?.version?.cursor == expected?.version?.cursor)
                    #expect(published?.version?.digest == expected?.version?.digest)
                    #expect((published?.version == nil) == (expected?.version == nil))
                }
            }
        }
        #expect(keptEnds.count.withLock { $0 } > 100, "the fast path was taken")
    }
}
