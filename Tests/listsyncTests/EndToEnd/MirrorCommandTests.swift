import Glibc
import ListFormats
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `listsync mirror NAME --output FILE`: the file follows the watched one.
    @Suite struct MirrorCommandTests {
        /// After every edit, made with each save strategy, the mirror file holds exactly what the
        /// watched file holds.
        @Test(arguments: SaveStrategy.allCases) func theMirrorFollowsEverySave(strategy: SaveStrategy) async throws {
            let harness = try await EndToEndHarness.running()
            let mirror = try await harness.startMirror("mirror.csv")
            for version in 1...4 {
                try await harness.save(ProductVersions.csv(version), by: strategy)
                try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version \(version), saved by \(strategy)")
                #expect(harness.document("mirror.csv") == harness.document("products.csv"))
            }
            #expect(mirror.exitStatus == nil, "the mirror keeps running: \(mirror.errorOutput)")
            // Each version replaced the file whole: no temporary file is left behind.
            #expect(access(harness.path(".mirror.csv.listsync-\(mirror.pid)"), F_OK) != 0)
        }

        /// An invalid version leaves the mirror at the last good one; the next valid one is
        /// mirrored.
        @Test func anInvalidWriteKeepsTheLastGoodVersion() async throws {
            let harness = try await EndToEndHarness.running()
            let mirror = try await harness.startMirror("mirror.json")
            let good = harness.document("products.csv")

            try await harness.save(ProductVersions.invalid)
            try await harness.waitForState(.invalid)
            // The mirror has received the status (it reports it), and its file is unchanged.
            try await eventually("the mirror reports the invalid file") { mirror.errorOutput.contains("✗ products invalid") }
            #expect(harness.document("mirror.json") == good)
            #expect(mirror.errorOutput.contains("2:4"), "the status carries the error's position: \(mirror.errorOutput)")

            try await harness.save(ProductVersions.csv(1))
            try await harness.waitUntilMirrored("mirror.json", equals: "products.csv", "the valid version after the invalid one")
            #expect(harness.document("mirror.json") != good)
        }

        /// A deleted file keeps the mirror as it was (a vanished file is not a mass delete); the
        /// recreated file is mirrored.
        @Test func aDeletedThenRecreatedFile() async throws {
            let harness = try await EndToEndHarness.running()
            let mirror = try await harness.startMirror("mirror.ndjson")
            let before = readFile(harness.path("mirror.ndjson"))
            try FileContent.unlink(harness.watched)
            try await eventually("the mirror reports the missing file") { mirror.errorOutput.contains("✗ products missing") }
            #expect(readFile(harness.path("mirror.ndjson")) == before)
            try FileContent.write(ProductVersions.csv(3), to: harness.watched)
            try await harness.waitUntilMirrored("mirror.ndjson", equals: "products.csv", "the recreated file")
        }

        /// `--once` exits 0 as soon as the file reflects the daemon's current version.
        @Test func onceExitsWhenTheMirrorIsCurrent() async throws {
            let harness = try await EndToEndHarness.running()
            for version in 1...2 {
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
            }
            let result = try await harness.run("mirror", ["products", "--output", harness.path("once.csv"), "--once"])
            #expect(result.status == 0, "\(result.error)")
            #expect(harness.document("once.csv") == harness.document("products.csv"))
            #expect(readFile(harness.path("once.csv")).hasPrefix(ProductVersions.header + "\n"), "CSV keeps the file's header")
        }

        /// The daemon restarted (same history, kept in its state directory): the mirror reconnects
        /// by itself and resumes, a change made while the daemon was down arriving as the next changeset.
        @Test func theMirrorSurvivesADaemonRestart() async throws {
            let harness = try await EndToEndHarness.running()
            let mirror = try await harness.startMirror("mirror.csv")
            let epoch = try await harness.watchSummaries().first?.cursor?.epoch

            try await harness.stopDaemon()
            try await harness.save(ProductVersions.csv(5))
            try await harness.startDaemon()
            #expect(try await harness.watchSummaries().first?.cursor?.epoch == epoch, "a restarted daemon keeps the epoch")
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "the version saved while the daemon was down")
            try await harness.save(ProductVersions.csv(6))
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "a change after the restart")
            #expect(mirror.exitStatus == nil)
            #expect(mirror.errorOutput.contains("reconnecting"), "\(mirror.errorOutput)")
        }

        /// A mirror killed with SIGKILL while it applies an edit or while idle, with edits made
        /// while it is down, and started again: each restart resumes from its state with the changesets
        /// it missed (no snapshot), and the mirror ends equal to the file.
        @Test func aKilledMirrorResumesWithTheChangesetsItMissed() async throws {
            let harness = try await EndToEndHarness.running()
            var mirror = try await harness.startMirror("mirror.csv")
            #expect(access(harness.path(".mirror.csv.listsync-state"), F_OK) == 0, "the state is kept beside the mirror")
            var version = 0
            for round in 1...4 {
                // Killed as soon as the daemon published an edit (the mirror may or may not have
                // applied it), or once the mirror is idle.
                version += 1
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
                if round % 2 == 0 { try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version \(version)") }
                try await mirror.killWithDescendants()
                // Edits while it is down.
                for _ in 1...2 {
                    version += 1
                    try await harness.save(ProductVersions.csv(version))
                    try await harness.waitForVersion(UInt64(version))
                }
                mirror = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv")])
                version += 1
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version \(version), after restart \(round)")
                #expect(mirror.errorOutput.contains(": resuming"), "restart \(round) resumes: \(mirror.errorOutput)")
                #expect(!mirror.errorOutput.contains(": snapshot"), "restart \(round) needs no snapshot: \(mirror.errorOutput)")
            }
            #expect(mirror.exitStatus == nil, "\(mirror.errorOutput)")
        }

        /// The state is a journal: after the first snapshot, a changeset is appended to it — the
        /// bytes before stay as they are — so the durable write per changeset is the size of the
        /// change, not of the list. Killed while it appended (an unfinished last entry), the mirror
        /// cuts that entry off, says so, and resumes from the entry before it.
        @Test func eachChangesetIsAppendedToTheStateAndAnUnfinishedEntryIsCutOff() async throws {
            let harness = try await EndToEndHarness.running()
            let mirror = try await harness.startMirror("mirror.csv")
            let state = harness.path(".mirror.csv.listsync-state")
            let snapshot = try StateJournalFile.bytes(state)
            #expect(try StateJournalFile.entries(state).count == 1, "the snapshot")
            try await harness.save(ProductVersions.csv(1))
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version 1")
            let journal = try StateJournalFile.bytes(state)
            let appended = journal.dropFirst(snapshot.count)
            let entries = try StateJournalFile.entries(state)
            #expect(journal.starts(with: snapshot) && entries.count == 2, "one entry appended:\n\(entries.dropFirst())")
            #expect(entries.last?.contains(#""type":"changeset""#) == true, "\(entries.dropFirst())")
            try await mirror.killWithDescendants()

            // A crash while the next entry was appended leaves half of it.
            try StateJournalFile.write(journal + appended.prefix(appended.count / 2), to: state)
            try await harness.save(ProductVersions.csv(2))
            try await harness.waitForVersion(2)
            let restarted = try harness.client("mirror", ["products", "--output", harness.path("mirror.csv")])
            try await harness.waitUntilMirrored("mirror.csv", equals: "products.csv", "version 2 after the unfinished entry")
            #expect(restarted.errorOutput.contains("state \(state): an unfinished last entry"), "\(restarted.errorOutput)")
            #expect(restarted.errorOutput.contains(": resuming") && !restarted.errorOutput.contains(": snapshot"), "\(restarted.errorOutput)")
            #expect(access(state + ".damaged", F_OK) != 0, "nothing set aside")
        }

        /// A state that is truncated, or whose list does not match its digest (edited by hand), is
        /// moved aside and reported; the mirror starts from a snapshot and equals the file.
        @Test(arguments: ["truncated", "edited"]) func aDamagedStateIsSetAsideAndTheMirrorStartsFromASnapshot(_ damage: String) async throws {
            let harness = try await EndToEndHarness.running()
            let mirror = try await harness.startMirror("mirror.json")
            try await mirror.stop()
            let state = harness.path(".mirror.json.listsync-state")
            let kept = try StateJournalFile.bytes(state)
            #expect(try StateJournalFile.entries(state).count == 1 && kept.contains("item 1".utf8), "the snapshot holds item 1")
            try StateJournalFile.write(
                damage == "truncated" ? Array(kept.prefix(kept.count / 2)) : kept.replacing(Array("item 1".utf8), with: Array("item X".utf8)), to: state)
            try await harness.save(ProductVersions.csv(1))
            try await harness.waitForVersion(1)
            let restarted = try harness.client("mirror", ["products", "--output", harness.path("mirror.json")])
            try await harness.waitUntilMirrored("mirror.json", equals: "products.csv", "version 1 after the \(damage) state")
            #expect(restarted.errorOutput.contains("state \(state): ") && restarted.errorOutput.contains("moved aside to \(state).damaged"), "\(restarted.errorOutput)")
            #expect(restarted.errorOutput.contains(": snapshot"), "\(restarted.errorOutput)")
            #expect(access(state + ".damaged", F_OK) == 0 && access(state, F_OK) == 0, "the damaged state is kept aside, a new one written")
        }

        /// A CSV mirror (and a CSV snapshot) of a JSON object of arrays keeps the sections in a
        /// `section` column: read with that column as section_by, it holds the watched file's
        /// sections and records.
        @Test func aCSVMirrorOfAnObjectOfArraysKeepsItsSections() async throws {
            let harness = try EndToEndHarness(watches: [EndToEndHarness.Watch(name: "teams", file: "teams.json", key: ["id"], sectionBy: nil)])
            func teams(_ version: Int) -> String {
                #"{"red": [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}], "blue": [{"id": 3, "name": "Cy \#(version)"}]}"#
            }
            try FileContent.write(teams(0), to: harness.watched)
            try await harness.startDaemon()
            let mirror = try harness.client("mirror", ["teams", "--output", harness.path("teams.csv")])
            /// The mirror's sections and records, without the section column.
            func mirrored() -> ListDocument? {
                let options = ReadOptions(format: .csv(delimiter: .comma), key: ["id"], sectionBy: "section")
                guard let list = try? ListReader(options: options).read(contentsOfFile: harness.path("teams.csv")),
                    case .sections(let sections) = list.document
                else { return nil }
                return .sections(sections.map { section in
                    ListDocument.Section(value: section.value, records: section.records.map { record in
                        guard case .object(let members) = record else { return record }
                        return .object(members.filter { $0.name != "section" })
                    })
                })
            }
            /// The watched file with its numbers as CSV reads them back: text.
            func watched() -> ListDocument? {
                guard case .sections(let sections) = harness.document("teams.json") else { return nil }
                return .sections(sections.map { section in
                    ListDocument.Section(value: section.value, records: section.records.map { record in
                        guard case .object(let members) = record else { return record }
                        return .object(members.map { ListValue.Member(name: $0.name, value: .string($0.value.text)) })
                    })
                })
            }
            try await eventually("the mirror holds the sections") { mirrored() != nil && mirrored() == watched() }
            try await harness.save(teams(1))
            try await eventually("the mirror holds the next version") { mirrored() != nil && mirrored() == watched() }
            #expect(readFile(harness.path("teams.csv")).hasPrefix("section,id,name\nred,1,Ann\n"))
            let snapshot = try await harness.run("snapshot", ["teams", "--output-format", "csv", "--section-column", "team"])
            #expect(snapshot.output == "team,id,name\nred,1,Ann\nred,2,Bo\nblue,3,Cy 1\n", "\(snapshot.error)")
            #expect(mirror.exitStatus == nil)
        }

        @Test func exitStatuses() async throws {
            let harness = try EndToEndHarness()
            try FileContent.write(ProductVersions.csv(0), to: harness.path("products.csv"))
            // Nobody listens yet: daemon unreachable.
            let unreachable = try await harness.run("mirror", ["products", "--output", harness.path("m.csv")])
            #expect(unreachable.status == 2, "\(unreachable.error)")
            #expect(unreachable.error.contains("cannot reach listsyncd"))
            try await harness.startDaemon()
            let unknown = try await harness.run("mirror", ["nothing", "--output", harness.path("m.csv")])
            #expect(unknown.status == 1 && unknown.error.contains("no watch named \"nothing\""), "\(unknown.error)")
            let noFormat = try await harness.run("mirror", ["products", "--output", harness.path("m.txt")])
            #expect(noFormat.status == 1 && noFormat.error.contains("--output-format"), "\(noFormat.error)")
            let unwritable = try await harness.run("mirror", ["products", "--output", harness.path("no/such/dir/m.csv")])
            #expect(unwritable.status == 3 && unwritable.error.contains("cannot create"), "\(unwritable.error)")
            #expect(unwritable.error.contains("\(harness.path("no/such/dir"))/"), "the path: \(unwritable.error)")
            #expect(unwritable.error.contains("open: No such file or directory (errno 2)"), "the call and errno: \(unwritable.error)")
        }
    }
}
