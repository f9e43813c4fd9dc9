import Glibc
import ListFormats
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.SaveStrategies {
    /// Runs a daemon watching `name` (written first with `version(0)`), subscribes, and after
    /// each `save` of versions 1…`edits` expects the subscriber's mirror to equal the file.
    func expectMirrorToFollow(
        _ name: String, watch: String, versions version: (Int) -> String, edits: Int = 3,
        save: (DaemonHarness, String, String) async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (harness, file, options) = try Self.prepare(name, watch: watch, version: version(0))
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntilMirroring(file, options: options), "initial snapshot", sourceLocation: sourceLocation)
        for edit in 1...edits {
            try await save(harness, file, version(edit))
            #expect(try await subscriber.receiveUntilMirroring(file, options: options), "after edit \(edit)\n\(harness.log)", sourceLocation: sourceLocation)
        }
        #expect(subscriber.changesets.count >= edits, sourceLocation: sourceLocation)
        #expect(subscriber.snapshots == 1, "resynchronised by snapshot", sourceLocation: sourceLocation)
        #expect(try await harness.stopDaemon() == 0, sourceLocation: sourceLocation)
    }

    /// A harness configured to watch `name` (its directory made), written with `initial`, and
    /// how the watch reads it.
    private static func prepare(_ name: String, watch: String, version initial: String) throws -> (DaemonHarness, String, ReadOptions) {
        let harness = try DaemonHarness()
        let file = harness.path(name)
        if let slash = name.lastIndex(of: "/") {
            try FileOperations.makeDirectory(harness.path(String(name[..<slash])))
        }
        try FileOperations.write(initial, to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\n\(watch)"])
        let options = try #require(DaemonConfiguration.parse(toml: "[[watch]]\nname = \"list\"\npath = \"\(file)\"\n\(watch)", file: "t", environment: environment([:])).configuration.watches.first).readOptions
        return (harness, file, options)
    }

    @Test func truncateAndWriteInPlace() async throws {
        try await self.expectMirrorToFollow("catalogue.csv", watch: "key = [\"sku\"]\nsection_by = \"category\"", versions: { Lists.catalogue($0) }) { _, file, text in
            // Partial content is visible between the writes.
            let middle = text.utf8.count / 2
            try await FileOperations.write([String(decoding: Array(text.utf8)[..<middle], as: UTF8.self), String(decoding: Array(text.utf8)[middle...], as: UTF8.self)], to: file, pausing: .milliseconds(30))
        }
    }

    @Test func writeTemporaryThenRenameOver() async throws {
        try await self.expectMirrorToFollow("sections.json", watch: "key = [\"id\"]", versions: Lists.sectionedJSON) { harness, file, text in
            try FileOperations.write(text, to: harness.path(".sections.json.tmp"))
            try FileOperations.rename(harness.path(".sections.json.tmp"), to: file)
        }
    }

    @Test func sedInPlace() async throws {
        var version = 0
        try await self.expectMirrorToFollow("log.ndjson", watch: "key = [\"id\"]", versions: { _ in Lists.log(2) }) { _, file, _ in
            version += 1
            try await FileOperations.runToEnd("/bin/sed", ["-i", "0,/\"old\"/s//\"new\\/\(version)\"/", file])
        }
    }

    @Test func vimBackupDance() async throws {
        try await self.expectMirrorToFollow("catalogue.tsv", watch: "key = [\"sku\"]\nsection_by = \"category\"", versions: { Lists.catalogue($0, delimiter: "\t") }) { harness, file, text in
            try FileOperations.rename(file, to: file + "~")
            try FileOperations.write(text, to: file)
            try FileOperations.remove(file + "~")
        }
    }

    @Test func copyOver() async throws {
        try await self.expectMirrorToFollow("catalogue.csv", watch: "key = [\"sku\"]", versions: { Lists.catalogue($0) }) { harness, file, text in
            try FileOperations.write(text, to: harness.path("source.csv"))
            try await FileOperations.runToEnd("/bin/cp", [harness.path("source.csv"), file])
        }
    }

    @Test func deleteAndRecreate() async throws {
        try await self.expectMirrorToFollow("sections.json", watch: "key = [\"id\"]", versions: Lists.sectionedJSON) { _, file, text in
            try FileOperations.remove(file)
            try FileOperations.write(text, to: file)
        }
    }

    @Test func parentDirectoryRemovedAndRecreated() async throws {
        try await self.expectMirrorToFollow("data/catalogue.csv", watch: "key = [\"sku\"]\nsection_by = \"category\"", versions: { Lists.catalogue($0) }) { harness, file, text in
            try FileOperations.remove(file)
            try FileOperations.removeDirectory(harness.path("data"))
            try FileOperations.makeDirectory(harness.path("data"))
            try FileOperations.write(text, to: file)
        }
    }
}
