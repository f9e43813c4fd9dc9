import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `subscribe --format json-patch|events` and `exec --format json-patch`, checked against
    /// `listsync snapshot --output-format json` at every version by an independent
    /// implementation: Python's `jsonpatch` package (scripts/bootstrap installs it) for the
    /// patches, and a replay keyed by `key` for the events.
    @Suite struct ChangeOutputTests {
        /// A history of a sectioned CSV with an ignored column: rows deleted, inserted, updated,
        /// rotated (moves) and moved between sections, sections added and removed, the `name`
        /// column renamed to `title` and back, and a save that changes only the ignored column.
        @Test func patchesAndEventsOfASectionedCSV() async throws {
            /// Products version `number`, `name` renamed to `title` when `renamed`, every row
            /// stamped with `stamp` in the ignored column.
            func version(_ number: Int, stamp: Int, renamed: Bool = false) -> String {
                var lines = ProductVersions.csv(number).split(separator: "\n").map(String.init)
                lines[0] = (renamed ? ProductVersions.header.replacing("name", with: "title") : lines[0]) + ",stamp"
                return (lines.prefix(1) + lines.dropFirst().map { $0 + ",\(stamp)" }).joined(separator: "\n") + "\n"
            }
            let saves: [(number: Int, stamp: Int, renamed: Bool)] = [
                (1, 1, false), (1, 2, false), (2, 3, false), (3, 4, true), (4, 5, true), (5, 6, false), (6, 7, false), (7, 8, true), (8, 9, false),
            ]
            // A save that changes only the ignored column publishes nothing.
            try await Self.check(
                EndToEndHarness.Watch(ignore: ["stamp"]), initial: version(0, stamp: 0),
                saves: saves.enumerated().map { index, save in
                    (version(save.number, stamp: save.stamp, renamed: save.renamed), index + 1 == saves.count || saves[index + 1].number != save.number)
                })
        }

        /// The same for a linear JSON list keyed by `id`: records deleted, inserted, updated and
        /// reordered, members added and removed, numbers and nested values.
        @Test func patchesAndEventsOfALinearJSONList() async throws {
            func version(_ number: Int) -> String {
                let records = (0..<12).filter { ($0 + number) % 4 != 0 }.map { id in
                    let extra = number % 3 == 1 ? #","tags":["t\#(id % 3)",{"n":\#(number)}]"# : ""
                    return #"{"id":\#(id),"price":\#((id * (number + 2)) % 7).5,"name":"item \#(id)"\#(extra)}"#
                }
                let rotation = (number * 5) % records.count
                return "[" + (records[rotation...] + records[..<rotation]).joined(separator: ",\n") + "]\n"
            }
            try await Self.check(
                EndToEndHarness.Watch(name: "products", file: "products.json", key: ["id"], sectionBy: nil), initial: version(0),
                saves: (1...8).map { (version($0), true) })
        }

        /// Runs the subscribers and an `exec` on `watch` while `saves` are made (each with whether
        /// it publishes a changeset), takes `snapshot --output-format json` after each published
        /// one, and has ``check`` compare.
        static func check(_ watch: EndToEndHarness.Watch, initial: String, saves: [(text: String, publishes: Bool)]) async throws {
            let harness = try EndToEndHarness(watches: [watch])
            try FileContent.write(initial, to: harness.watched)
            try await harness.startDaemon()
            let patches = try harness.client("subscribe", ["products", "--format", "json-patch"])
            let events = try harness.client("subscribe", ["products", "--format", "events"])
            let exec = try harness.client("exec", ["products", "--format", "json-patch", "--", "/bin/sh", "-c", "cat >> \"$0/exec-patches\"", harness.directory])
            try await eventually("the clients have subscribed") {
                [patches, events, exec].allSatisfy { $0.errorOutput.contains("subscribed to products") } && patches.outputLines.count == 1
            }
            /// The rendering `snapshot` prints at `seq`.
            func render(_ seq: Int) async throws {
                let snapshot = try await harness.run("snapshot", ["products", "--output-format", "json"])
                #expect(snapshot.status == 0, "\(snapshot.error)")
                try FileContent.write(snapshot.output, to: harness.path("render-\(seq).json"))
            }
            try await render(0)
            var seq = 0
            for save in saves {
                try await harness.save(save.text)
                guard save.publishes else { continue }
                seq += 1
                try await harness.waitForVersion(UInt64(seq))
                try await render(seq)
            }
            let last = seq
            try await eventually("every changeset is printed and run") {
                patches.outputLines.count == last + 1 && readFile(harness.path("exec-patches")).split(separator: "\n").count == last
                    && events.outputLines.last?.contains(":\(last)\"") == true
            }
            try FileContent.write(patches.outputLines.joined(separator: "\n") + "\n", to: harness.path("patches"))
            try FileContent.write(events.outputLines.joined(separator: "\n") + "\n", to: harness.path("events"))
            let check = try harness.process("/usr/bin/env", ["python3", "-c", Self.check, harness.directory, String(last), harness.watched] + watch.key)
            let status = try await check.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "\(check.output)\(check.errorOutput)")
            #expect(check.output.contains("checked \(last) patches"), "\(check.output)")
            #expect(readFile(harness.path("exec-patches")).split(separator: "\n") == Array(patches.outputLines.dropFirst()), "exec gets each changeset's patch")
        }

        /// Applies each patch with `jsonpatch` to the previous rendering and compares with the
        /// next; replays the events keyed by `key` (checking each `before`) and compares with
        /// every rendering.
        static let check = #"""
            import json, sys, jsonpatch
            directory, last, file, key_fields = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
            renders = [json.load(open(f"{directory}/render-{seq}.json")) for seq in range(last + 1)]
            patches = [json.loads(line) for line in open(f"{directory}/patches").read().splitlines()]
            assert len(patches) == last + 1, f"{len(patches)} patches for {last} changesets"
            document = None
            for seq, patch in enumerate(patches):
                document = jsonpatch.apply_patch(document, patch)
                assert document == renders[seq], f"patch {seq} gives {json.dumps(document)[:400]}, not {json.dumps(renders[seq])[:400]}"
            assert any(op["op"] == "remove" for patch in patches for op in patch), "the history removes records"
            def records(render):
                sections = render.items() if isinstance(render, dict) else [(None, render)]
                return {json.dumps({field: record[field] for field in key_fields}, sort_keys=True): (record, section) for section, list in sections for record in list}
            events = [json.loads(line) for line in open(f"{directory}/events").read().splitlines()]
            held, index = {}, 0
            for seq in range(last + 1):
                while index < len(events) and int(events[index]["source"]["cursor"].split(":")[1]) <= seq:
                    event = events[index]
                    key = json.dumps(event["key"], sort_keys=True)
                    assert event["source"]["watch"] == "products" and event["source"]["file"] == file and event["ts_ms"] > 0, event
                    if event["op"] in ("u", "d"):
                        assert held.get(key) == (event["before"], event.get("section", {}).get("before")), f"{event} does not start from {held.get(key)}"
                    else:
                        assert key not in held and event["before"] is None, f"{event} creates a record held as {held.get(key)}"
                    if event["op"] == "d":
                        del held[key]
                    else:
                        held[key] = (event["after"], event.get("section", {}).get("after"))
                    index += 1
                assert held == records(renders[seq]), f"events up to {seq} give {sorted(held)[:5]}…, not the rendering"
            assert {event["op"] for event in events} == {"r", "c", "u", "d"}, {event["op"] for event in events}
            print(f"checked {last} patches and {len(events)} events")
            """#
    }
}
