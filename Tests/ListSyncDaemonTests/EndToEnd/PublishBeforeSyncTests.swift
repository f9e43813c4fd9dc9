import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// `sync_before_publish = false`: a version is published once written and flushed right after.
/// A killed daemon loses nothing; a machine that stopped (another boot id) without the daemon
/// stopping cleanly makes the watch start a new epoch; a clean stop keeps it.
extension EndToEndTests.Persistence {
    static let watchBody = "name = \"list\"\npath = \"list.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""

    /// A daemon on `list.csv` (version 0 of the catalogue) that publishes before it flushes,
    /// under boot id `boot` (``PublishedBeforeSyncMark/testBootIDVariable``), and a subscriber
    /// that mirrors version 0.
    static func subscribedPublishingBeforeSync(
        boot: String, environment: [String: String] = [:]
    ) async throws -> (harness: DaemonHarness, first: MirrorSubscriber) {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("list.csv"))
        try harness.writeConfig([Self.watchBody], extra: "sync_before_publish = false")
        try await harness.startDaemon(environment: Self.booted(boot, environment))
        let first = try await harness.subscribe("list")
        #expect(try await first.receiveUntil { $0.mirror != nil })
        return (harness, first)
    }

    static func booted(_ boot: String, _ environment: [String: String] = [:]) -> [String: String] {
        environment.merging([PublishedBeforeSyncMark.testBootIDVariable: boot]) { $1 }
    }

    static func markPath(_ harness: DaemonHarness) -> String {
        harness.path("state/list/\(PublishedBeforeSyncMark.fileName)")
    }

    /// The daemon is held after publishing version 1 and before flushing it: the subscriber has
    /// version 1 all the same, and version 2, saved meanwhile, is not published (the next
    /// version waits for the flush). Killed there (SIGKILL, same boot), the daemon restarts with
    /// the epoch kept and version 1 restored from what it wrote: the subscriber resumes, and its
    /// mirror equals `listsync snapshot` at every step.
    @Test func aVersionIsPublishedBeforeItsFlushAndAKilledDaemonLosesNothing() async throws {
        let (harness, first) = try await Self.subscribedPublishingBeforeSync(boot: "boot-a", environment: [StateCrashPoints.holdVariable: "published-unsynced:120000:2"])
        let epoch = try #require(first.mirror?.cursor.epoch)
        try await Self.saved(1, harness, first)
        #expect(first.changesets == [Cursor(epoch: epoch, seq: 1)], "published while its flush is held")
        #expect(access(Self.markPath(harness), F_OK) == 0, "the mark is written before a version is published unflushed")
        try EndToEndTests.Subscribers.save(Lists.catalogue(2), to: harness.path("list.csv"))
        _ = try? await first.receiveUntil(timeout: .seconds(2)) { _ in false }
        #expect(first.changesets.map(\.seq) == [1], "version 2 waits for the flush of version 1")
        let atOne = try #require(first.mirror)

        harness.daemon?.send(SIGKILL)
        #expect(try await harness.daemon?.exited() == 128 + SIGKILL)
        try await harness.startDaemon(environment: Self.booted("boot-a"))
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .resume)
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.changesets == [Cursor(epoch: epoch, seq: 2)])
        #expect(try await harness.snapshot(of: "list") == resumed.mirror?.document)
        #expect(Self.cursorsNamingTwoChangesets([first, resumed]).isEmpty)
        #expect(try await harness.stopDaemon() == 0)
        #expect(access(Self.markPath(harness), F_OK) != 0, "a clean stop removes the mark")
    }

    /// With the opt-in, the daemon is killed at each step around the publication of version 2:
    /// written, published (handed to subscribers or about to be), flushed. The restart (same
    /// boot) keeps the epoch and version 2; every cursor names one changeset.
    @Test(arguments: [("deltas-written", 2), ("published", 3), ("published-unsynced", 3), ("deltas-synced", 2)])
    func aKillAroundAnUnflushedPublicationKeepsTheEpochAndTheVersion(step: String, occurrence: Int) async throws {
        let (harness, first) = try await Self.subscribedPublishingBeforeSync(boot: "boot-a", environment: [StateCrashPoints.variable: "\(step):\(occurrence)"])
        try await Self.saved(1, harness, first)
        let atOne = try #require(first.mirror)
        try EndToEndTests.Subscribers.save(Lists.catalogue(2), to: harness.path("list.csv"))
        #expect(try await harness.daemon?.exited() == 128 + SIGKILL, "\(harness.log)")
        _ = try? await first.receiveUntil(timeout: .seconds(1)) { _ in false }

        try await harness.startDaemon(environment: Self.booted("boot-a"))
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .resume)
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.changesets == [Cursor(epoch: atOne.cursor.epoch, seq: 2)])
        #expect(try await harness.snapshot(of: "list") == resumed.mirror?.document)
        #expect(Self.cursorsNamingTwoChangesets([first, resumed]).isEmpty)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// Restarted under another boot id without a clean stop (the machine stopped), the watch
    /// starts a new epoch, says why, and a client at the old cursor gets a snapshot that equals
    /// `listsync snapshot`. After a clean stop, the epoch is kept under another boot.
    @Test(arguments: [false, true])
    func anotherBootWithoutACleanStopStartsANewEpoch(stoppedCleanly: Bool) async throws {
        let (harness, first) = try await Self.subscribedPublishingBeforeSync(boot: "boot-a")
        try await Self.saved(1, harness, first)
        let atOne = try #require(first.mirror)
        if stoppedCleanly {
            #expect(try await harness.stopDaemon() == 0)
            #expect(access(Self.markPath(harness), F_OK) != 0, "a clean stop removes the mark")
        } else {
            harness.daemon?.send(SIGKILL)
            #expect(try await harness.daemon?.exited() == 128 + SIGKILL)
            #expect(access(Self.markPath(harness), F_OK) == 0)
        }

        try await harness.startDaemon(environment: Self.booted("boot-b"))
        let resumed = try await harness.subscribe("list", mirror: atOne)
        if stoppedCleanly {
            #expect(harness.log.contains("state restored"), "\(harness.log)")
            #expect(resumed.reply?.mode == .resume)
            try await Self.saved(2, harness, resumed)
            #expect(resumed.changesets == [Cursor(epoch: atOne.cursor.epoch, seq: 2)])
        } else {
            #expect(
                harness.log.contains(
                    "the machine stopped without listsyncd stopping cleanly; versions published before they were durable may be lost"),
                "\(harness.log)")
            #expect(resumed.reply?.mode == .snapshot)
            #expect(resumed.reply?.reason == .otherHistory)
            #expect(try await resumed.receiveUntil { $0.snapshots == 1 })
            #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
            #expect(resumed.mirror?.cursor.epoch != atOne.cursor.epoch, "a new epoch")
            try await Self.saved(2, harness, resumed)
        }
        #expect(try await harness.snapshot(of: "list") == resumed.mirror?.document)
        // The history goes on from here, under the new boot, across a clean restart.
        let cursor = try #require(resumed.mirror?.cursor)
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon(environment: Self.booted("boot-b"))
        let again = try await harness.subscribe("list", mirror: resumed.mirror)
        #expect(again.reply?.mode == .resume && again.reply?.cursor == cursor)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// The default (`sync_before_publish = true`) reads state an opted-in daemon left: under the
    /// same boot it is restored (and the mark removed once the files are flushed); the default
    /// never writes a mark.
    @Test func theDefaultRestoresStateLeftUnderTheSameBootAndWritesNoMark() async throws {
        let (harness, first) = try await Self.subscribedPublishingBeforeSync(boot: "boot-a")
        try await Self.saved(1, harness, first)
        let atOne = try #require(first.mirror)
        harness.daemon?.send(SIGKILL)
        #expect(try await harness.daemon?.exited() == 128 + SIGKILL)
        try harness.writeConfig([Self.watchBody])
        try await harness.startDaemon(environment: Self.booted("boot-a"))
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        #expect(access(Self.markPath(harness), F_OK) != 0, "the mark is removed once the files are flushed")
        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .resume)
        try await Self.saved(2, harness, resumed)
        #expect(access(Self.markPath(harness), F_OK) != 0, "the default writes no mark")
        #expect(try await harness.stopDaemon() == 0)
    }
}

extension EndToEndTests.Persistence {
    /// The flush of version 2, already published, fails (every attempt, `EIO`): the daemon says
    /// so, the next version starts a new epoch (the subscriber gets a snapshot that equals
    /// `listsync snapshot`), and the mark makes the next start begin a new epoch too, even under
    /// the same boot and after a clean stop — no cursor of the old epoch resumes over state that
    /// may lack version 2.
    @Test func aFailedFlushOfAPublishedVersionStartsNewEpochs() async throws {
        let (harness, first) = try await Self.subscribedPublishingBeforeSync(boot: "boot-a", environment: [StateCrashPoints.failedFlushVariable: "deltas:2"])
        let epoch = try #require(first.mirror?.cursor.epoch)
        try await Self.saved(1, harness, first)
        try await Self.saved(2, harness, first)
        #expect(first.changesets == [Cursor(epoch: epoch, seq: 1), Cursor(epoch: epoch, seq: 2)])
        let atTwo = try #require(first.mirror)
        try await eventually("the daemon reports the failed flush") { harness.log.contains("already published, failed") }
        #expect(harness.log.contains("the next version starts a new epoch"), "\(harness.log)")
        // The file is read again at once: the same list, in a new epoch.
        #expect(try await first.receiveUntil { $0.snapshots == 2 })
        #expect(first.mirror?.cursor.epoch != epoch, "a new epoch")
        #expect(try await harness.snapshot(of: "list") == first.mirror?.document)
        try await Self.saved(3, harness, first)
        #expect(try await harness.stopDaemon() == 0)
        #expect(access(Self.markPath(harness), F_OK) == 0, "a clean stop keeps the mark of a failed flush")

        try await harness.startDaemon(environment: Self.booted("boot-a"))
        #expect(harness.log.contains("a flush of a version published before it was durable failed"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: atTwo)
        #expect(resumed.reply?.mode == .snapshot && resumed.reply?.reason == .otherHistory)
        #expect(try await resumed.receiveUntil { $0.snapshots == 1 })
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.mirror?.cursor.epoch != epoch)
        #expect(try await harness.snapshot(of: "list") == resumed.mirror?.document)
        #expect(try await harness.stopDaemon() == 0)
    }
}

extension EndToEndTests.Persistence {
    /// With the opt-in, a watch's first version is written whole (a slot) and published before
    /// its flush; killed there, the daemon restarts (same boot) with that version restored.
    @Test func aKillBeforeTheFirstVersionsFlushKeepsIt() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("list.csv"))
        try harness.writeConfig([Self.watchBody], extra: "sync_before_publish = false")
        let crashing = try DaemonProcess(
            config: harness.configPath, environment: Self.booted("boot-a", [StateCrashPoints.variable: "published-unsynced"]),
            logPath: harness.path("crash.log"))
        #expect(try await crashing.exited() == 128 + SIGKILL, "\(crashing.log)")
        try await harness.startDaemon(environment: Self.booted("boot-a"))
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(subscriber.mirror?.cursor.seq == 0)
        #expect(try await harness.snapshot(of: "list") == subscriber.mirror?.document)
        #expect(try await harness.stopDaemon() == 0)
    }
}
