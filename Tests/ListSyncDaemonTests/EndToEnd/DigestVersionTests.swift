import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// Protocol version 2 beside version 1: a raw client that says hello with version 1 and one that
/// offers version 2 follow the same watch across edits and a daemon restart, each checking the
/// digest its version defines, and get the same changesets but for the digest.
extension EndToEndTests.Persistence {
    /// The file's list, read as the daemon reads it.
    static func list(_ harness: DaemonHarness) throws -> ParsedList {
        try ListReader(options: Self.options).read(bytes: Array(try FileContent.read(harness.path("list.csv")).utf8))
    }

    @Test func aVersion1AndAVersion2ClientEachVerifyTheirOwnDigestAcrossARestart() async throws {
        let harness = try await Self.started()
        let v1 = try await harness.subscribe("list", protocols: [1])
        let v2 = try await harness.subscribe("list", protocols: [1, 2])
        #expect(v1.digestVersion == .v1 && v2.digestVersion == .v2)
        #expect(try await v1.receiveUntil { $0.mirror != nil })
        #expect(try await v2.receiveUntil { $0.mirror != nil })
        var v1AtOne: TestMirror?
        for version in 1...2 {
            try await Self.saved(version, harness, v1)
            #expect(try await v2.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
            if version == 1 { v1AtOne = v1.mirror }
        }
        // Each mirror checked every digest as it came (TestMirror throws on a mismatch); the
        // digests are those of the file, each in its version, and the lines differ only there.
        let list = try Self.list(harness)
        #expect(v1.changesetMessages.last?.digest == ListDigest(of: list, version: .v1))
        #expect(v2.changesetMessages.last?.digest == ListDigest(of: list, version: .v2))
        #expect(v1.changesetMessages.count == 2 && v2.changesetMessages.count == 2)
        for (old, new) in zip(v1.changesetMessages, v2.changesetMessages) {
            var same = new
            same.digest = old.digest
            #expect(same == old && old.digest != new.digest)
        }
        let atTwo = (v1: try #require(v1.mirror), v2: try #require(v2.mirror))
        #expect(try await harness.stopDaemon() == 0)

        // Saved while the daemon is down; both resume from their cursors after the restart.
        try EndToEndTests.Subscribers.save(Lists.catalogue(3), to: harness.path("list.csv"))
        try await harness.startDaemon()
        let resumed1 = try await harness.subscribe("list", mirror: atTwo.v1, protocols: [1])
        let resumed2 = try await harness.subscribe("list", mirror: atTwo.v2, protocols: [1, 2])
        #expect(resumed1.reply?.mode == .resume && resumed2.reply?.mode == .resume)
        #expect(try await resumed1.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(try await resumed2.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed1.snapshots == 0 && resumed2.snapshots == 0)
        #expect(resumed1.changesetMessages.last?.digest == ListDigest(of: try Self.list(harness), version: .v1))
        // From before the last version saved before the restart: its line was saved with its
        // version 1 digest (`digest_v1`), so the version 1 client resumes across the restart too.
        let fromOne = try await harness.subscribe("list", mirror: try #require(v1AtOne), protocols: [1])
        #expect(fromOne.reply?.mode == .resume)
        #expect(try await fromOne.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(fromOne.snapshots == 0 && fromOne.changesets.map(\.seq) == [2, 3])
        #expect(fromOne.changesetMessages.first == v1.changesetMessages.last, "the line before the restart, byte for byte as sent then")

        // Both connected: the next edit reaches both, each with its digest.
        try await Self.saved(4, harness, resumed1)
        #expect(try await resumed2.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed2.changesetMessages.last?.digest == ListDigest(of: try Self.list(harness), version: .v2))

        let atFour = (v1: try #require(resumed1.mirror), v2: try #require(resumed2.mirror))
        // The version 1 clients leave the watch (each answered once the daemon dropped it); two
        // versions follow.
        for client in [resumed1, fromOne] {
            guard case .unsubscribed = try await client.client.call({ .unsubscribe(id: $0, watch: "list") }) else {
                throw TestFailure(description: "no unsubscribe reply")
            }
        }
        for version in 5...6 {
            try await Self.saved(version, harness, resumed2)
        }
        // For as many versions as the history keeps after the last version 1 client left, the
        // version 1 digest is still computed and kept: one that comes back resumes.
        let late1 = try await harness.subscribe("list", mirror: atFour.v1, protocols: [1])
        #expect(late1.reply?.mode == .resume)
        #expect(try await late1.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(late1.snapshots == 0 && late1.changesets.map(\.seq) == [5, 6])
        // A version 2 client resumes across them.
        let late2 = try await harness.subscribe("list", mirror: atFour.v2, protocols: [1, 2])
        #expect(late2.reply?.mode == .resume)
        #expect(try await late2.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(late2.snapshots == 0 && late2.changesets.map(\.seq) == [5, 6])
        #expect(try await harness.stopDaemon() == 0)
    }
}

/// A version 1 client (a sink) that subscribed after the newest saved version, and followed the
/// watch when the daemon stopped, resumes from its cursor after the restart across the versions
/// saved before it came back: the daemon remembers it on disk (`v1-client`) and goes on computing
/// version 1 digests, as if the client had left at the stop.
extension EndToEndTests.Persistence {
    @Test func aVersion1ClientThatSubscribedAfterTheLastVersionResumesAcrossARestart() async throws {
        let harness = try await Self.started()
        let v2 = try await harness.subscribe("list", protocols: [1, 2])
        #expect(try await v2.receiveUntil { $0.mirror != nil })
        for version in 1...2 {
            try await Self.saved(version, harness, v2)
        }
        // Versions 1 and 2 were published with no version 1 client: their lines carry no
        // `digest_v1`. The version 1 client subscribes at 2 and follows until the daemon stops.
        let v1 = try await harness.subscribe("list", protocols: [1])
        #expect(v1.digestVersion == .v1)
        #expect(try await v1.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        let atTwo = try #require(v1.mirror)
        #expect(atTwo.cursor.seq == 2)
        #expect(try await harness.stopDaemon() == 0)

        // Two versions are published after the restart before the version 1 client is back.
        try await harness.startDaemon()
        let watcher = try await harness.subscribe("list", protocols: [1, 2])
        #expect(try await watcher.receiveUntil { $0.mirror != nil })
        for version in 3...4 {
            try await Self.saved(version, harness, watcher)
        }
        let resumed = try await harness.subscribe("list", mirror: atTwo, protocols: [1])
        #expect(resumed.reply?.mode == .resume, "the changesets after its cursor, not a snapshot")
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.snapshots == 0 && resumed.changesets.map(\.seq) == [3, 4])
        #expect(resumed.changesetMessages.last?.digest == ListDigest(of: try Self.list(harness), version: .v1))
        #expect(try await harness.stopDaemon() == 0)
    }
}
