import Glibc
import ListFormats
import ListSyncClient
import ListSyncProtocol
import Testing

extension ClientEndToEnd {
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
            #expect(lines.contains { $0.hasPrefix("+ [") } || lines.contains { $0.hasPrefix("− [") }, "\(subscriber.output)")
            #expect(!subscriber.output.contains("\u{1B}["), "no colors with --color never")
        }

        @Test func aBadCursorIsAUsageError() async throws {
            let harness = try EndToEndHarness()
            let result = try await harness.run("subscribe", ["products", "--since", "not-a-cursor"])
            #expect(result.status == 1 && result.error.contains("is not a cursor"), "\(result.error)")
        }
    }
}
