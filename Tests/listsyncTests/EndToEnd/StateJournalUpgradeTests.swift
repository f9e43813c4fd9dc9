import Glibc
import ListFormats
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `mirror` and `exec` upgraded over the state journals the build before issue 18's one
    /// record format wrote (`HEX BODY` lines, in `Tests/Fixtures/StateBeforeIssue18`, made by that
    /// build's `listsync`) read them — nothing is set aside — and their next save writes the
    /// journal in DurableFiles' checksummed record format.
    @Suite struct StateJournalUpgradeTests {
        static let fixtures = RepositoryFiles.fixtures("StateBeforeIssue18")

        /// The old journal, with half of a line after it (a crash while an entry was appended):
        /// only the old format's reader tells that unfinished entry apart and cuts it off.
        @Test func aMirrorReadsItsOldJournalAndRewritesItInTheRecordFormat() async throws {
            let harness = try await EndToEndHarness.running()
            let state = harness.path(".mirror.csv.listsync-state")
            let old = try StateJournalFile.bytes(Self.fixtures + "/mirror-journal")
            #expect(!old.starts(with: StateJournalFile.magic) && old.split(separator: UInt8(ascii: "\n")).count == 2, "the old format")
            try StateJournalFile.write(old + Array("0cb6550dfcc899f8c014e8d147290d66 {\"type\":\"chan".utf8), to: state)

            let mirror = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv")])
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version 0 after the old journal")
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await eventually("the journal is rewritten in the record format") {
                let entries = (try? StateJournalFile.entries(state)) ?? []
                return entries.count == 1 && entries[0].contains(#""type":"snapshot""#) && entries[0].contains(#""cursor":"\#(epoch):0""#)
            }
            #expect(mirror.errorOutput.contains("state \(state): an unfinished last entry"), "the old journal was read: \(mirror.errorOutput)")
            #expect(!mirror.errorOutput.contains("moved aside"), "\(mirror.errorOutput)")
            #expect(access(state + ".damaged", F_OK) != 0, "nothing set aside")
            #expect(mirror.exitStatus == nil, "\(mirror.errorOutput)")

            // The rewritten journal is appended to and read back on the next start.
            try await harness.save(ProductVersions.csv(1))
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version 1")
            try await eventually("a changeset is appended") { ((try? StateJournalFile.entries(state)) ?? []).count == 2 }
            _ = try await mirror.stop()
            let restarted = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv")])
            try await eventually("the restarted mirror resumes") { restarted.errorOutput.contains(": resuming") }
            #expect(!restarted.errorOutput.contains("moved aside"), "\(restarted.errorOutput)")
        }

        /// An old journal of the daemon's current history (this run's entries, written as the
        /// builds before wrote them): the mirror resumes from it, and its next changeset replaces
        /// the journal whole in the record format instead of appending a record to the old lines.
        @Test func aMirrorResumesFromAnOldJournalAndReplacesItAtTheNextChangeset() async throws {
            let harness = try await EndToEndHarness.running()
            let mirror = try await harness.startMirror("mirror.csv")
            _ = try await mirror.stop()
            let state = harness.path(".mirror.csv.listsync-state")
            let entries = try StateJournalFile.entries(state)
            #expect(entries.count == 1, "the snapshot")
            try FileContent.write(entries.map { "\(ListValue.string($0).contentHash) \($0)\n" }.joined(), to: state)

            let restarted = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv")])
            try await eventually("the mirror resumes from the old journal") { restarted.errorOutput.contains(": resuming") }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await harness.save(ProductVersions.csv(1))
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version 1")
            try await eventually("the old journal is replaced, not appended to") {
                let now = (try? StateJournalFile.entries(state)) ?? []
                return now.count == 1 && now[0].contains(#""type":"snapshot""#) && now[0].contains(#""cursor":"\#(epoch):1""#)
            }
            #expect(!restarted.errorOutput.contains("moved aside") && !restarted.errorOutput.contains(": snapshot"), "\(restarted.errorOutput)")
            #expect(access(state + ".damaged", F_OK) != 0, "nothing set aside")
            #expect(restarted.exitStatus == nil, "\(restarted.errorOutput)")
        }

        /// `exec --state` reads its old cursor journal, and its old list journal (json-patch).
        @Test(arguments: [("exec-cursor-journal", [String]()), ("exec-list-journal", ["--format", "json-patch"])])
        func execReadsItsOldJournalAndRewritesItInTheRecordFormat(_ fixture: String, _ format: [String]) async throws {
            let harness = try await EndToEndHarness.running()
            let state = harness.path("exec.state")
            let old = try StateJournalFile.bytes(Self.fixtures + "/" + fixture)
            #expect(!old.starts(with: StateJournalFile.magic), "the old format")
            try StateJournalFile.write(old, to: state)
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)

            let exec = try harness.client("exec", ["products", "--state", state] + format + ["--", "/bin/sh", "-c", "cat > /dev/null"])
            try await eventually("exec records \(epoch):0 in the record format") {
                let last = (try? StateJournalFile.entries(state))?.last ?? ""
                return last == "\(epoch):0 products" || last.contains(#""watch":"products","cursor":"\#(epoch):0""#)
            }
            #expect(!exec.errorOutput.contains("moved aside"), "the old journal was read: \(exec.errorOutput)")
            #expect(access(state + ".damaged", F_OK) != 0, "nothing set aside")
            _ = try await exec.stop()
        }
    }
}
