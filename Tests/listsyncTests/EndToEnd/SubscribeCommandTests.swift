import Glibc
import ListFormats
import ListSyncClient
import ListSyncProtocol
import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// `listsync subscribe NAME --format ndjson`: one protocol message per event.
    @Suite struct SubscribeCommandTests {
        /// The messages a subscriber printed, decoded.
        static func messages(_ client: ChildProcess) throws -> [ServerMessage] {
            try client.outputLines.compactMap { try MessageParser.serverMessage(ofLine: Array($0.utf8)) }
        }

        static func changesets(_ client: ChildProcess) throws -> [ChangesetMessage] {
            try self.messages(client).compactMap { message in
                if case .changeset(let changeset) = message { return changeset }
                return nil
            }
        }

        static func snapshots(_ client: ChildProcess) throws -> [SnapshotChunk] {
            try self.messages(client).compactMap { message in
                if case .snapshot(let chunk) = message { return chunk }
                return nil
            }
        }

        /// A snapshot larger than a chunk prints as the daemon sends it: one `snapshot` line per
        /// chunk, numbered from 0, each bounded by the chunk size (256 KiB, plus the one record
        /// that crosses it), the first fresh and only the last with the digest; together they are
        /// the whole list, exactly what `listsync snapshot` prints.
        @Test func aLargeSnapshotPrintsOneBoundedLinePerChunk() async throws {
            let harness = try await EndToEndHarness.running()
            try await harness.save(ProductVersions.bulk(rows: 8_000, nameLength: 120))
            try await harness.waitForVersion(1)
            let subscriber = try harness.client("subscribe", ["products", "--format", "ndjson"])
            try await eventually("the subscriber printed the last chunk") { try Self.snapshots(subscriber).last?.last == true }

            let lines = subscriber.outputLines
            let chunks = try Self.snapshots(subscriber)
            #expect(try Self.messages(subscriber).count == lines.count, "every line a protocol message (the chunks, a status)")
            #expect(chunks.count >= 4, "a list of about 1.7 MB of JSON in chunks of 256 KiB")
            #expect(chunks.map(\.chunk) == Array(0..<chunks.count))
            #expect(chunks.map(\.last) == Array(repeating: false, count: chunks.count - 1) + [true])
            #expect(chunks.allSatisfy { $0.fresh && $0.cursor == chunks[0].cursor })
            #expect(chunks.dropLast().allSatisfy { $0.digest == nil } && chunks.last?.digest != nil)
            for (number, line) in lines.enumerated() {
                #expect(line.utf8.count <= SnapshotEncoder.defaultTargetChunkSize + 1024, "line \(number): \(line.utf8.count) bytes")
            }

            // Together, the whole list (the digest checked on the last chunk): what `snapshot` prints.
            var mirror = MirroredList(watch: "products")
            // `listsync subscribe` spoke protocol version 2: the digests printed are version 2 ones.
            mirror.useDigestVersion(.v2)
            for chunk in chunks { _ = try mirror.apply(chunk) }
            #expect(mirror.cursor == chunks[0].cursor)
            let snapshot = try await harness.run("snapshot", ["products", "--output-format", "csv"])
            #expect(snapshot.status == 0, "\(snapshot.error)")
            try FileContent.write(snapshot.output, to: harness.path("snapshot.csv"))
            let printed = try #require(harness.document("snapshot.csv"))
            #expect(mirror.document == printed)
            #expect(mirror.document.allRecords.count == 8_000)
        }

        /// A subscriber that disconnects and resumes with its last cursor gets exactly the
        /// changesets it missed — the same ones a subscriber that stayed connected got — and no
        /// snapshot.
        @Test func aResumedSubscriberGetsExactlyWhatItMissed() async throws {
            let harness = try await EndToEndHarness.running()
            let steady = try harness.client("subscribe", ["products"])
            let leaving = try harness.client("subscribe", ["products", "--format", "ndjson"])
            try await eventually("both subscribers have the snapshot") {
                try Self.snapshots(steady).count == 1 && Self.snapshots(leaving).count == 1
            }
            for version in 1...2 {
                try await harness.save(ProductVersions.csv(version))
                try await eventually("the leaving subscriber has changeset \(version)") { try Self.changesets(leaving).count == version }
            }
            try await leaving.stop()
            let cursor = try #require(try Self.changesets(leaving).last?.cursor)
            #expect(cursor.seq == 2)

            for version in 3...5 {
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
            }
            let resumed = try harness.client("subscribe", ["products", "--since", cursor.description])
            try await eventually("the resumed subscriber has the missed changesets") { try Self.changesets(resumed).count == 3 }
            try await eventually("the steady subscriber has every changeset") { try Self.changesets(steady).count == 5 }
            let missed = try Self.changesets(resumed)
            #expect(missed.map(\.cursor.seq) == [3, 4, 5])
            #expect(missed.map(\.prevSeq) == [2, 3, 4])
            #expect(missed == Array(try Self.changesets(steady).suffix(3)), "the same changesets, stages and digests included")
            #expect(try Self.snapshots(resumed).isEmpty, "a resumed subscriber gets no snapshot")
            #expect(resumed.errorOutput.contains("resuming"), "\(resumed.errorOutput)")

            // And the changesets it printed, applied to the list at its cursor, give the file.
            let steadyMessages = try Self.messages(steady)
            guard case .snapshot(let first) = steadyMessages.first else { throw TestFailure("no snapshot first") }
            var mirror = MirroredList(watch: "products")
            // `listsync subscribe` spoke protocol version 2: the digests printed are version 2 ones.
            mirror.useDigestVersion(.v2)
            try mirror.apply(first)
            for changeset in try Self.changesets(steady) { try mirror.apply(changeset) }
            #expect(mirror.document == harness.document("products.csv"))
        }

        /// A restarted daemon carries on its history: the subscriber reconnects with its cursor
        /// and gets the change made while the daemon was down as the next changeset, no snapshot.
        @Test func aRestartedDaemonResumesWithTheChangeMadeWhileItWasDown() async throws {
            let harness = try await EndToEndHarness.running()
            let subscriber = try harness.client("subscribe", ["products"])
            try await eventually("the subscriber has the snapshot") { try Self.snapshots(subscriber).count == 1 }
            let epoch = try Self.snapshots(subscriber)[0].cursor.epoch
            try await harness.stopDaemon()
            try await harness.save(ProductVersions.csv(1))
            try await harness.startDaemon()
            try await eventually("the subscriber has the change made while the daemon was down") { try Self.changesets(subscriber).count == 1 }
            try await harness.save(ProductVersions.csv(2))
            try await eventually("the subscriber has the next changeset") { try Self.changesets(subscriber).count == 2 }
            #expect(try Self.changesets(subscriber).map(\.cursor) == [Cursor(epoch: epoch, seq: 1), Cursor(epoch: epoch, seq: 2)])
            #expect(try Self.snapshots(subscriber).count == 1, "no snapshot after the restart")
            var mirror = MirroredList(watch: "products")
            // `listsync subscribe` spoke protocol version 2: the digests printed are version 2 ones.
            mirror.useDigestVersion(.v2)
            let snapshot = try Self.snapshots(subscriber)[0]
            #expect(try mirror.apply(snapshot))
            for changeset in try Self.changesets(subscriber) { try mirror.apply(changeset) }
            #expect(mirror.document == harness.document("products.csv"))
        }

        /// Statuses are printed as they come: invalid with the error's position, then ok.
        @Test func statusesArePrinted() async throws {
            let harness = try await EndToEndHarness.running()
            let subscriber = try harness.client("subscribe", ["products", "--format", "human", "--color", "never"])
            try await eventually("the subscriber has the snapshot") { subscriber.output.contains("snapshot: ") }
            try await harness.save(ProductVersions.invalid)
            try await eventually("the subscriber reports the invalid file") { subscriber.output.contains("✗ products invalid: ") }
            try await harness.save(ProductVersions.csv(1))
            try await eventually("the subscriber shows the changes") { subscriber.output.contains(":1\n") }
            let lines = subscriber.outputLines
            #expect(lines.contains { $0.hasPrefix("+ S") } || lines.contains { $0.hasPrefix("− S") }, "\(subscriber.output)")
            #expect(!subscriber.output.contains("\u{1B}["), "no colors with --color never")
        }

        /// Without --format, a terminal gets human lines and a file gets protocol messages.
        @Test func theDefaultFormatIsHumanOnATerminalAndNDJSONOtherwise() async throws {
            let harness = try await EndToEndHarness.running()
            let onTerminal = try harness.terminalClient("subscribe", ["products", "--color", "never"])
            let toFile = try harness.client("subscribe", ["products"])
            try await eventually("both have the snapshot") {
                try onTerminal.output.contains("snapshot: 19 records in 4 sections\r\n") && Self.snapshots(toFile).count == 1
            }
            #expect(!onTerminal.output.contains("\"type\""), "\(onTerminal.output)")
        }

        /// The lines `subscribe --format human` printed for the changeset that published `cursor`.
        static func humanLines(_ client: ChildProcess, watch: String = "products", cursor: Cursor) -> [Substring] {
            let lines = client.output.replacing("\r\n", with: "\n").split(separator: "\n")
            guard let start = lines.firstIndex(of: "● \(watch) \(cursor)") else { return [] }
            let rest = lines[(start + 1)...]
            return Array(rest.prefix { !$0.hasPrefix("● ") && !$0.hasPrefix("✓ ") && !$0.hasPrefix("✗ ") })
        }

        /// Each changeset is shown as `listsync diff --format human` shows the change between the
        /// two files: records by their key, updated fields old → new, sections by name. (A move
        /// says where the record was and is: lines in a file, positions in a mirror.)
        @Test func humanLinesAreTheOfflineDiffsLines() async throws {
            let harness = try await EndToEndHarness.running()
            let subscriber = try harness.client("subscribe", ["products", "--format", "human", "--color", "never"])
            try await eventually("the subscriber has the snapshot") { subscriber.output.contains("snapshot: ") }
            for version in 1...4 {
                try FileContent.write(ProductVersions.csv(version - 1), to: harness.path("old.csv"))
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
                let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
                let cursor = Cursor(epoch: epoch, seq: UInt64(version))
                try await eventually("the subscriber shows \(cursor)") { subscriber.output.contains("● products \(cursor)\n") }
                try await eventually("the subscriber has shown \(cursor) whole") {
                    subscriber.output.contains("● products \(cursor)\n") && subscriber.output.hasSuffix("\n")
                }
                let diff = try await harness.run(
                    "diff", [harness.path("old.csv"), harness.watched, "--key", "sku", "--section-by", "category", "--color", "never"])
                let expected = diff.output.split(separator: "\n")
                let shown = Self.humanLines(subscriber, cursor: cursor)
                #expect(!shown.isEmpty)
                /// Record moves as `→ KEY`, without the places.
                func withoutPlaces(_ lines: [Substring]) -> [String] {
                    lines.map { line in
                        line.hasPrefix("→ ") && !line.hasPrefix("→ section") ? line.split(separator: " ").prefix(2).joined(separator: " ") : String(line)
                    }
                }
                #expect(withoutPlaces(shown) == withoutPlaces(expected), "version \(version)")
                #expect(shown.filter { !$0.hasPrefix("→ ") } == expected.filter { !$0.hasPrefix("→ ") }, "version \(version)")
            }
        }

        /// Resumed with --since, the missed changesets are shown by place (the subscriber has no
        /// list yet); the changesets after them by key and section name, as diff shows them.
        @Test func afterSinceTheNextChangesetsAreShownByKeyAndSection() async throws {
            let harness = try await EndToEndHarness.running()
            for version in 1...2 {
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
            }
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            let resumed = try harness.client("subscribe", ["products", "--since", "\(epoch):1", "--format", "human", "--color", "never"])
            try await eventually("the resumed subscriber shows the missed changeset") { resumed.output.contains("● products \(epoch):2\n") }
            let missed = Self.humanLines(resumed, cursor: Cursor(epoch: epoch, seq: 2))
            #expect(!missed.isEmpty && missed.allSatisfy { !$0.hasPrefix("~ S") }, "by place: \(missed)")
            for version in 3...4 {
                try FileContent.write(ProductVersions.csv(version - 1), to: harness.path("old.csv"))
                try await harness.save(ProductVersions.csv(version))
                try await harness.waitForVersion(UInt64(version))
                let cursor = Cursor(epoch: epoch, seq: UInt64(version))
                try await eventually("the subscriber shows \(cursor)") { !Self.humanLines(resumed, cursor: cursor).isEmpty && resumed.output.hasSuffix("\n") }
                let diff = try await harness.run(
                    "diff", [harness.path("old.csv"), harness.watched, "--key", "sku", "--section-by", "category", "--color", "never"])
                let shown = Self.humanLines(resumed, cursor: cursor)
                #expect(shown.filter { !$0.hasPrefix("→ ") } == diff.output.split(separator: "\n").filter { !$0.hasPrefix("→ ") }, "version \(version)")
            }
            #expect(resumed.exitStatus == nil)
        }

        /// A reload that gives the watch another key starts a new epoch; the changesets after its
        /// snapshot name records by the new key.
        @Test func aNewKeyNamesTheRecordsAfterTheNextSnapshot() async throws {
            let harness = try await EndToEndHarness.running()
            let subscriber = try harness.client("subscribe", ["products", "--format", "human", "--color", "never"])
            try await eventually("the subscriber has the snapshot") { subscriber.output.contains("snapshot: ") }
            let configuration = readFile(harness.path("listsyncd.toml"))
            try FileContent.write(configuration.replacing(#"key = ["sku"]"#, with: #"key = ["name"]"#), to: harness.path("listsyncd.toml"))
            harness.daemon?.send(SIGHUP)
            try await eventually("the subscriber has the snapshot of the new epoch") {
                subscriber.output.components(separatedBy: "snapshot: ").count == 3
            }
            try await harness.save(ProductVersions.csv(0).replacing("S3,item 3,", with: "S3,item 3 (new),").replacing("S1,item 1,3.00", with: "S1,item 1,3.50"))
            try await eventually("the subscriber shows the change") { subscriber.output.contains(#"~ item 1  price: "#) }
            #expect(subscriber.output.contains(#"− item 3  {"sku":"S3""#) && subscriber.output.contains(#"+ item 3 (new)  {"sku":"S3""#), "\(subscriber.output)")
        }

        /// A nested JSON record shows the pointer of each changed member, not the whole record; on
        /// a terminal each line is cut to its width.
        @Test func nestedChangesShowTheirPathsAndLinesAreCutToTheTerminal() async throws {
            let harness = try EndToEndHarness(watches: [EndToEndHarness.Watch(name: "people", file: "people.json", key: ["id"], sectionBy: nil)])
            func people(city: String, bio: String) -> String {
                #"[{"id":1,"name":"Ann","address":{"city":"\#(city)","zip":"0150"},"bio":"\#(bio)"},{"id":2,"name":"Bob","address":{"city":"Oslo"}}]"#
            }
            try FileContent.write(people(city: "Oslo", bio: "short"), to: harness.watched)
            try await harness.startDaemon()
            let subscriber = try harness.terminalClient("subscribe", ["people", "--color", "never"], columns: 60)
            try await eventually("the subscriber has the snapshot") { subscriber.output.contains("snapshot: 2 records") }
            try await harness.save(people(city: "Bergen", bio: "short"))
            try await harness.waitForVersion(1, of: "people")
            try await harness.save(people(city: "Bergen", bio: String(repeating: "long ", count: 40)))
            try await harness.waitForVersion(2, of: "people")
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await eventually("the subscriber shows both changes") { subscriber.output.contains("● people \(epoch):2\r\n~ ") }
            #expect(Self.humanLines(subscriber, watch: "people", cursor: Cursor(epoch: epoch, seq: 1)) == [#"~ 1  /address/city: "Oslo" → "Bergen""#])
            let cut = Self.humanLines(subscriber, watch: "people", cursor: Cursor(epoch: epoch, seq: 2))
            #expect(cut == [#"~ 1  bio: "short" → "long long long long long long long lon…"#], "\(cut)")
            #expect(cut.allSatisfy { $0.count == 60 })
        }

        /// After a CSV header rename, the header line says it once; no record is listed for it.
        @Test func aRenamedColumnIsOneHeaderLine() async throws {
            let harness = try await EndToEndHarness.running()
            let subscriber = try harness.client("subscribe", ["products", "--format", "human", "--color", "never"])
            try await eventually("the subscriber has the snapshot") { subscriber.output.contains("snapshot: ") }
            try await harness.save(ProductVersions.csv(0).replacing("sku,name,", with: "sku,title,"))
            try await harness.waitForVersion(1)
            let epoch = try #require(try await harness.watchSummaries().first?.cursor?.epoch)
            try await eventually("the subscriber shows the rename") { subscriber.output.contains("renamed: name → title\n") }
            #expect(Self.humanLines(subscriber, cursor: Cursor(epoch: epoch, seq: 1)) == ["~ header: renamed: name → title"], "\(subscriber.output)")
        }

        @Test func aBadCursorIsAUsageError() async throws {
            let harness = try EndToEndHarness()
            let result = try await harness.run("subscribe", ["products", "--since", "not-a-cursor"])
            #expect(result.status == 1 && result.error.contains("is not a cursor"), "\(result.error)")
        }
    }
}
