import Glibc
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `listsync snapshot` and `listsync list`.
    @Suite struct SnapshotAndListCommandTests {
        /// A snapshot prints the list exactly as `listsync parse` prints the file, in each format.
        @Test func aSnapshotPrintsWhatParsePrints() async throws {
            let harness = try EndToEndHarness()
            try FileContent.write(ProductVersions.csv(4), to: harness.path("products.csv"))
            try await harness.startDaemon()
            for format in ["json", "csv", "ndjson"] {
                let snapshot = try await harness.run("snapshot", ["products", "--output-format", format])
                let parse = try await harness.run(
                    "parse", [harness.path("products.csv"), "--key", "sku", "--section-by", "category", "--output-format", format])
                #expect(snapshot.status == 0, "\(snapshot.error)")
                #expect(!snapshot.output.isEmpty && snapshot.output == parse.output, "\(format)")
            }
        }

        /// The last good version is printed, the state and its reason are named on standard
        /// error, and the status is 3 (data error), so a script never takes it for current.
        @Test func aSnapshotOfAnInvalidOrMissingFileIsTheLastGoodVersionWithANote() async throws {
            let harness = try await EndToEndHarness.running()
            let good = try await harness.run("snapshot", ["products", "--output-format", "csv"])
            #expect(good.status == 0 && good.error.isEmpty, "\(good.error)")
            try await harness.save(ProductVersions.invalid)
            try await harness.waitForState(.invalid)
            let afterInvalid = try await harness.run("snapshot", ["products", "--output-format", "csv"])
            #expect(afterInvalid.status == 3, "\(afterInvalid.error)")
            #expect(afterInvalid.output == good.output)
            let reason = try #require(try await harness.watchSummaries().first?.error)
            #expect(afterInvalid.error.contains("the watch \"products\" is invalid: \(reason)"), "\(afterInvalid.error)")
            #expect(afterInvalid.error.contains("printed its last good version"), "\(afterInvalid.error)")

            unlink(harness.path("products.csv"))
            try await harness.waitForState(.missing)
            let afterMissing = try await harness.run("snapshot", ["products", "--output-format", "csv"])
            #expect(afterMissing.status == 3, "\(afterMissing.error)")
            #expect(afterMissing.output == good.output)
            #expect(afterMissing.error.contains("the watch \"products\" is missing"), "\(afterMissing.error)")
        }

        @Test func exitStatuses() async throws {
            let harness = try EndToEndHarness()
            try FileContent.write(ProductVersions.invalid, to: harness.path("products.csv"))
            let unreachable = try await harness.run("snapshot", ["products"])
            #expect(unreachable.status == 2, "\(unreachable.error)")
            try await harness.startDaemon()
            let unknown = try await harness.run("snapshot", ["nothing"])
            #expect(unknown.status == 1, "\(unknown.error)")
            // The file has never been valid: there is no version to print.
            let noVersion = try await harness.run("snapshot", ["products"])
            #expect(noVersion.status == 3 && noVersion.error.contains("no valid version"), "\(noVersion.error)")
        }

        @Test func listShowsCursorRowsAndState() async throws {
            let harness = try EndToEndHarness(watches: [
                EndToEndHarness.Watch(),
                EndToEndHarness.Watch(name: "people", file: "people.json", key: ["id"], sectionBy: nil),
            ])
            try FileContent.write(ProductVersions.csv(0), to: harness.path("products.csv"))
            try FileContent.write(#"[{"id":1,"name":"Ann"},{"id":2,"name":"Bo"}]"#, to: harness.path("people.json"))
            try await harness.startDaemon()
            try await SaveStrategy.writeTemporaryAndRename.save(#"[{"id":1,"name":"Ann"}"#, to: harness.path("people.json"), scratch: harness.directory)
            try await harness.waitForState(.invalid, of: "people")
            // Each watch has a history, so an epoch, of its own.
            let summaries = try await harness.watchSummaries()
            let epoch = try #require(summaries.first { $0.name == "products" }?.cursor?.epoch)
            let peopleEpoch = try #require(summaries.first { $0.name == "people" }?.cursor?.epoch)
            let table = try await harness.run("list", [])
            #expect(table.status == 0)
            let rows = table.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            #expect(rows.first == ["NAME", "FORMAT", "STATE", "CURSOR", "ROWS"])
            let products = ProductVersions.csv(0).split(separator: "\n").count - 1
            #expect(rows.dropFirst().contains(["products", "csv", "(sectioned)", "ok", "\(epoch):0", "\(products)"]), "\(table.output)")
            #expect(rows.dropFirst().contains(["people", "json", "invalid", "\(peopleEpoch):0", "2"]), "\(table.output)")
            // Why the watch is invalid, with its position, under the table.
            let reason = try #require(try await harness.watchSummaries().first { $0.name == "people" }?.error)
            #expect(reason.position != nil)
            #expect(table.output.contains("\npeople: invalid: \(reason)\n"), "\(table.output)")
            let ndjson = try await harness.run("list", ["--format", "ndjson"])
            let people = #"{"name":"people","format":"json","sectioned":false,"state":"invalid","cursor":"\#(peopleEpoch):0","rows":2,"key":["id"],"path":"\#(harness.path("people.json"))","error":{"message":"\#(reason.message)","line":"#
            #expect(ndjson.output.contains(people), "\(ndjson.output)")
            #expect(ndjson.output.contains(#""key":["sku"],"path":"\#(harness.path("products.csv"))"}"#), "\(ndjson.output)")
        }
    }
}
