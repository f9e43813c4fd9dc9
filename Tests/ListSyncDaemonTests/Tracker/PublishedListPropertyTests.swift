import ListFormats
import ListSyncProtocol
import PropertyBased
import Testing
@testable import ListSyncDaemon

/// At every cursor, a mirror that applied every changeset holds exactly what a snapshot at that
/// cursor shows — values, field names and digest — and that is the file without its ignored
/// fields (issue 10 items 1 and 2). Random histories of edits: ignored fields alone, values,
/// insertions, deletions, moves, and a column renamed and renamed back.
@Suite struct PublishedListPropertyTests {
    /// One edit of the model, chosen by `kind`; `a` and `b` pick rows and values.
    struct Edit: Sendable, CustomStringConvertible {
        var kind: Int
        var a: Int
        var b: Int
        var description: String { "\(kind):\(a):\(b)" }
    }

    /// The file's model: rows of (id, name, price, stamp), `stamp` ignored; the name column is
    /// called `name` or `title`.
    struct Model {
        var rows: [(id: Int, name: String, price: Int, stamp: Int)] = (0..<6).map { ($0, "item \($0)", $0 * 3, 0) }
        var nameColumn = "name"
        var nextID = 6

        /// Applies an edit; says whether it changed an ignored field only.
        mutating func apply(_ edit: Edit) -> Bool {
            let row = rows.isEmpty ? 0 : edit.a % rows.count
            switch edit.kind % 7 {
            case 0 where !rows.isEmpty:
                rows[row].stamp += 1 + edit.b % 5
                return true
            case 1 where !rows.isEmpty:
                rows[row].price = edit.b % 50
            case 2:
                rows.insert((nextID, "item \(nextID)", edit.b % 50, edit.b), at: rows.isEmpty ? 0 : edit.b % (rows.count + 1))
                nextID += 1
            case 3 where !rows.isEmpty:
                rows.remove(at: row)
            case 4 where rows.count > 1:
                rows.insert(rows.remove(at: row), at: edit.b % rows.count)
            case 5:
                nameColumn = nameColumn == "name" ? "title" : "name"
            default:
                if !rows.isEmpty { rows[row].name = "renamed \(edit.b % 7)" }
            }
            return false
        }

        func text(json: Bool) -> String {
            if json {
                let records = rows.map {
                    #"{"id":\#($0.id),"\#(nameColumn)":"\#($0.name)","price":\#($0.price),"meta":{"at":\#($0.stamp),"v":1},"stamp":\#($0.stamp)}"#
                }
                return "[" + records.joined(separator: ",\n") + "]\n"
            }
            return (["id,\(nameColumn),price,stamp"] + rows.map { "\($0.id),\($0.name),\($0.price),\($0.stamp)" }).joined(separator: "\n") + "\n"
        }
    }

    /// Edits, each drawn as one number: its kind, and two picks below 1000.
    static let edits = Gen.int(in: 0...6_999_999).map { Edit(kind: $0 % 7, a: $0 / 7 % 1000, b: $0 / 7000) }.array(of: 1...25)

    @Test(arguments: [false, true]) func mirrorsEqualSnapshotsAtEveryCursor(json: Bool) async {
        let options =
            json
            ? ReadOptions(format: .json, key: ["id"], ignore: ["stamp", "/meta/at"])
            : ReadOptions(format: .csv(delimiter: .comma), key: ["id"], ignore: ["stamp"])
        await propertyCheck(count: 150, input: Self.edits) { edits in
            #expect(throws: Never.self) {
                var machine = FileTracker.StateMachine(watch: "w", epoch: Epoch(rawValue: 7))
                var model = Model()
                let first = try #require(machine.ingest(FileTrackerStateMachineTests.present(model.text(json: json)), options: options)?.version)
                var mirror = try FileTrackerStateMachineTests.mirror(of: first)
                for edit in edits {
                    let ignoredOnly = model.apply(edit)
                    let text = model.text(json: json)
                    let publication = machine.ingest(FileTrackerStateMachineTests.present(text), options: options)
                    if ignoredOnly {
                        #expect(publication == nil, "an edit of an ignored field alone publishes nothing")
                    }
                    if publication?.changesetLine != nil {
                        try mirror.apply(try FileTrackerStateMachineTests.changeset(publication))
                    }
                    let live = try #require(machine.state.lastGood)
                    let snapshot = try FileTrackerStateMachineTests.mirror(of: live)
                    #expect(mirror.cursor == snapshot.cursor)
                    #expect(mirror.schema == snapshot.schema)
                    #expect(mirror.document == snapshot.document, "after \(edit)")
                    #expect(mirror.digest == snapshot.digest && mirror.digest == live.digest)
                    // The file, read on its own, is what is published.
                    let file = try ListReader(options: options).read(bytes: Array(text.utf8))
                    #expect(snapshot.document == file.document)
                    #expect(snapshot.schema == file.schema)
                    #expect(!snapshot.schema.columns.contains("stamp"))
                }
            }
        }
    }
}
