import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `--format events` of lists whose records repeat — identical rows of a list without a key,
    /// repeated keys — replayed by a consumer that holds records by `key`: after every changeset
    /// it holds exactly the records `snapshot` prints at that cursor.
    @Suite struct RepeatedRecordEventsTests {
        /// A sectioned CSV without a key: three identical rows, two of them deleted, repeated rows
        /// added back, moved around and across sections, a section renamed away, all deleted.
        @Test func eventsRebuildAKeylessListWithRepeatedRows() async throws {
            let header = "sku,name,category\n"
            let versions = [
                ["A,apple,fruit", "A,apple,fruit", "A,apple,fruit", "B,bean,veg", "C,cherry,fruit"],
                ["A,apple,fruit", "B,bean,veg", "C,cherry,fruit"],
                ["C,cherry,fruit", "A,apple,fruit", "B,bean,veg", "A,apple,fruit", "B,bean,veg", "B,bean,veg"],
                ["B,bean,veg", "A,apple,fruit", "B,bean,veg", "C,cherry,fruit", "A,apple,fruit", "A,apple,fruit", "B,bean,veg"],
                ["B,bean,veg", "A,apple,fruit", "A,apple,fruit", "A,apple,herb", "A,apple,herb"],
                ["A,apple,herb", "B,bean,veg", "A,apple,fruit", "A,apple,herb", "A,apple,fruit"],
                ["A,apple,fruit"],
                [],
                ["B,bean,veg", "B,bean,veg"],
            ].map { header + $0.map { $0 + "\n" }.joined() }
            try await Self.check(EndToEndHarness.Watch(key: [], sectionBy: "category"), versions: versions)
        }

        /// A linear NDJSON list keyed by `id` whose keys repeat, with different values.
        @Test func eventsRebuildAListWithRepeatedKeys() async throws {
            let versions = [
                [(1, "a"), (1, "b"), (2, "c"), (1, "a")],
                [(1, "b"), (2, "c"), (1, "a")],
                [(2, "c"), (1, "a"), (1, "a"), (1, "b"), (2, "d")],
                [(1, "x"), (2, "d")],
                [(2, "d"), (2, "d"), (1, "x"), (1, "x")],
            ].map { $0.map { #"{"id":\#($0.0),"v":"\#($0.1)"}"# + "\n" }.joined() }
            try await Self.check(EndToEndHarness.Watch(name: "products", file: "products.ndjson", key: ["id"], sectionBy: nil), versions: versions)
        }

        /// `exec --state --format events` restarted: the list restored from its state still
        /// numbers occurrences, so a record added beside an existing one of its key after the
        /// restart is the key's occurrence 1, not a second occurrence 0.
        @Test func resumedEventsNumberTheOccurrencesOfTheListHeld() async throws {
            let harness = try EndToEndHarness(watches: [EndToEndHarness.Watch(name: "products", file: "products.ndjson", key: ["id"], sectionBy: nil)])
            try FileContent.write(#"{"id":1,"v":"a"}"# + "\n", to: harness.watched)
            try await harness.startDaemon()
            let state = harness.path("exec.state")
            let arguments = ["products", "--state", state, "--format", "events", "--", "/bin/sh", "-c", #"cat >> "$0/events""#, harness.directory]
            var exec = try harness.client("exec", arguments)
            try await eventually("exec recorded the snapshot") { access(state, F_OK) == 0 }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await harness.save(#"{"id":1,"v":"a"}"# + "\n" + #"{"id":2,"v":"b"}"# + "\n")
            try await eventually("exec recorded \(epoch):1") { readFile(state).contains(#""watch":"products","cursor":"\#(epoch):1""#) }
            try await exec.killWithDescendants()
            exec = try harness.client("exec", arguments)
            try await eventually("exec resumed") { exec.errorOutput.contains(": resuming") }
            try await harness.save(#"{"id":1,"v":"a"}"# + "\n" + #"{"id":1,"v":"c"}"# + "\n" + #"{"id":2,"v":"b"}"# + "\n")
            try await eventually("the command got \(epoch):2") { readFile(harness.path("events")).contains("\(epoch):2") }
            let lines = readFile(harness.path("events")).split(separator: "\n").filter { $0.contains("\(epoch):2") }
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first.map { $0.contains(#""op":"c""#) && $0.contains(#""key":{"id":1,"occurrence":1}"#) } == true, "\(lines)")
            #expect(exec.exitStatus == nil, "\(exec.errorOutput)")
        }

        /// Saves `versions` one after another with a subscriber of events running, renders
        /// `snapshot --output-format json` at each, and has ``replay`` compare.
        static func check(_ watch: EndToEndHarness.Watch, versions: [String]) async throws {
            let harness = try EndToEndHarness(watches: [watch])
            try FileContent.write(versions[0], to: harness.watched)
            try await harness.startDaemon()
            let events = try harness.client("subscribe", ["products", "--format", "events"])
            try await eventually("the subscriber has the snapshot") { events.errorOutput.contains("subscribed to products") && !events.outputLines.isEmpty }
            for (seq, text) in versions.enumerated() {
                if seq > 0 {
                    try await harness.save(text)
                    try await harness.waitForVersion(UInt64(seq))
                }
                let snapshot = try await harness.run("snapshot", ["products", "--output-format", "json"])
                #expect(snapshot.status == 0, "\(snapshot.error)")
                try FileContent.write(snapshot.output, to: harness.path("render-\(seq).json"))
            }
            let last = versions.count - 1
            // The last version's events are out once a line of its cursor is, and none is due
            // after it: wait for the subscriber to print a changeset past it.
            try await eventually("the events of every changeset are printed") {
                events.outputLines.contains { $0.contains(":\(last)\"") } || last == 0
            }
            try await Task.sleep(for: .milliseconds(300))
            try FileContent.write(events.outputLines.joined(separator: "\n") + "\n", to: harness.path("events"))
            let check = try harness.process("/usr/bin/env", ["python3", "-c", Self.replay, harness.directory, String(last)])
            let status = try await check.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "\(check.output)\(check.errorOutput)")
            #expect(check.output.contains("rebuilt \(last + 1) versions"), "\(check.output)")
        }

        /// Replays the events into a dictionary by `key` — each `u` and `d` must find what its
        /// `before` says, each `c` a key not held — and compares what it holds, as a multiset of
        /// records with their sections, with every rendering.
        static let replay = #"""
            import json, sys
            from collections import Counter
            directory, last = sys.argv[1], int(sys.argv[2])
            def records(render):
                sections = render.items() if isinstance(render, dict) else [(None, render)]
                return Counter(json.dumps([record, section], sort_keys=True) for section, list in sections for record in list)
            events = [json.loads(line) for line in open(f"{directory}/events").read().splitlines()]
            held, index = {}, 0
            for seq in range(last + 1):
                while index < len(events) and int(events[index]["source"]["cursor"].split(":")[1]) <= seq:
                    event = events[index]
                    key = json.dumps(event["key"], sort_keys=True)
                    section = event.get("section", {})
                    if event["op"] in ("u", "d"):
                        assert held.get(key) == (event["before"], section.get("before")), f"{event} does not start from {held.get(key)}"
                    else:
                        assert key not in held and event["before"] is None, f"{event} creates a record held as {held.get(key)}"
                    if event["op"] == "d":
                        del held[key]
                    else:
                        held[key] = (event["after"], section.get("after"))
                    index += 1
                expected = records(json.load(open(f"{directory}/render-{seq}.json")))
                got = Counter(json.dumps([record, section], sort_keys=True) for record, section in held.values())
                assert got == expected, f"events up to {seq} give {got}, not {expected}"
            assert index == len(events)
            print(f"rebuilt {last + 1} versions from {len(events)} events")
            """#
    }
}
