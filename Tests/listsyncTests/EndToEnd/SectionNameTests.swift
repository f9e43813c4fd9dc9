import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// A JSON rendering names each section by its `section_by` value's text: values that differ
    /// but read alike (`"1"` and `1`, `"true"` and `true`, `""` and `null`) would give an object
    /// two members of one name, and a JSON parser keeps one of them. The daemon reports such a
    /// file invalid, with the position, and every output stays valid JSON with every record.
    @Suite struct SectionNameTests {
        /// Records of an NDJSON list sectioned by `g`, one per value.
        static func records(_ values: [String]) -> String {
            values.enumerated().map { #"{"id":\#($0.offset),"g":\#($0.element)}"# }.joined(separator: "\n") + "\n"
        }

        @Test func sectionValuesThatReadAlikeMakeTheWatchInvalidAndOutputsStayValid() async throws {
            let watch = EndToEndHarness.Watch(name: "products", file: "products.ndjson", key: ["id"], sectionBy: "g")
            let harness = try EndToEndHarness(watches: [watch])
            // Distinct names: "1", 2, true, "false", null ("") are five sections.
            let distinct = [#""1""#, "2", "true", #""false""#, "null"]
            try FileContent.write(Self.records(distinct), to: harness.watched)
            try await harness.startDaemon()
            let mirror = try harness.client("mirror", ["products", "--output", harness.path("mirror.json")])
            let patches = try harness.client("subscribe", ["products", "--format", "json-patch"])
            try await eventually("the clients have the list") {
                access(harness.path("mirror.json"), F_OK) == 0 && patches.outputLines.count == 1
            }
            let before = try await harness.run("snapshot", ["products", "--output-format", "json"])
            try FileContent.write(before.output, to: harness.path("snapshot-0.json"))
            try FileContent.write(readFile(harness.path("mirror.json")), to: harness.path("mirror-0.json"))

            // Each pair reads alike: the file is invalid, at the second value of a pair.
            for colliding in [[#""1""#, "1"], ["true", #""true""#], ["null", #""""#]] {
                try await harness.save(Self.records(distinct + colliding))
                try await harness.waitForState(.invalid)
                let status = try harness.client("subscribe", ["products", "--format", "ndjson"])
                try await eventually("the status says why, where") {
                    status.output.contains("section_by value names the section") && status.output.contains(#""line":7"#)
                }
                status.send(SIGKILL)
                let snapshot = try await harness.run("snapshot", ["products", "--output-format", "json"])
                try FileContent.write(snapshot.output, to: harness.path("snapshot-invalid.json"))
                try await Self.expectRecords(5, in: ["snapshot-invalid.json", "mirror.json"], harness: harness)
                try await harness.save(Self.records(distinct))
                try await harness.waitForState(.ok)
            }
            try FileContent.write(patches.outputLines.joined(separator: "\n") + "\n", to: harness.path("patches"))
            try await Self.expectRecords(5, in: ["snapshot-0.json", "mirror-0.json"], harness: harness, patches: "patches")
            #expect(mirror.exitStatus == nil, "\(mirror.errorOutput)")
        }

        /// Loads each file with Python's `json`, failing on a repeated member name, and counts its
        /// records; applies the JSON Patch lines in `patches` (with `jsonpatch`) the same way.
        static func expectRecords(_ count: Int, in files: [String], harness: EndToEndHarness, patches: String? = nil) async throws {
            let script = #"""
                import json, sys, jsonpatch
                def unique(pairs):
                    names = [name for name, _ in pairs]
                    assert len(names) == len(set(names)), f"repeated member names in {names}"
                    return dict(pairs)
                directory, count, patches, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
                documents = [json.load(open(f"{directory}/{name}"), object_pairs_hook=unique) for name in files]
                if patches:
                    document = None
                    for line in open(f"{directory}/{patches}").read().splitlines():
                        document = jsonpatch.apply_patch(document, json.loads(line, object_pairs_hook=unique))
                    documents.append(document)
                for name, document in zip(files + ["patches"], documents):
                    records = sum(len(section) for section in document.values())
                    assert records == count, f"{name}: {records} records, not {count}: {document}"
                print("counted", len(documents))
                """#
            let check = try harness.process("/usr/bin/env", ["python3", "-c", script, harness.directory, String(count), patches ?? ""] + files)
            let status = try await check.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "\(check.output)\(check.errorOutput)")
        }
    }
}
