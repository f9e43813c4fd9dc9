import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// A watch's history survives restarts and crashes: the epoch is kept, clients resume with
/// exactly the changesets they missed, an edit made while the daemon was down is the next `seq`,
/// and no cursor ever names two different changesets. Damaged state starts a new epoch.
extension EndToEndTests.Persistence {
    static let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"], sectionBy: "category")

    /// A daemon on `list.csv` (version 0 of the catalogue), sectioned and keyed.
    static func started(environment: [String: String] = [:]) async throws -> DaemonHarness {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("list.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"list.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""])
        try await harness.startDaemon(environment: environment)
        return harness
    }

    /// Saves version `version` of the catalogue and waits until `subscriber` mirrors it.
    static func saved(_ version: Int, _ harness: DaemonHarness, _ subscriber: MirrorSubscriber, file: String = "list.csv") async throws {
        try EndToEndTests.Subscribers.save(Lists.catalogue(version), to: harness.path(file))
        #expect(try await subscriber.receiveUntilMirroring(harness.path(file), options: Self.options))
    }

    @Test func aRestartKeepsTheEpochAndResumesWithExactlyTheMissedChangesets() async throws {
        let harness = try await Self.started()
        let first = try await harness.subscribe("list")
        #expect(try await first.receiveUntil { $0.mirror != nil })
        try await Self.saved(1, harness, first)
        let atOne = try #require(first.mirror)
        try await Self.saved(2, harness, first)
        let epoch = atOne.cursor.epoch
        #expect(try await harness.stopDaemon() == 0)

        // Saved while the daemon is down: published as the next seq when it comes back.
        try EndToEndTests.Subscribers.save(Lists.catalogue(3), to: harness.path("list.csv"))
        try await harness.startDaemon()
        #expect(harness.log.contains("state restored"), "\(harness.log)")

        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .resume)
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.changesets == [Cursor(epoch: epoch, seq: 2), Cursor(epoch: epoch, seq: 3)])
        #expect(resumed.snapshots == 0)
        // The changeset before the restart is sent again byte for byte the same.
        #expect(resumed.changesetMessages.first == first.changesetMessages.last)

        // The first subscriber resumes from its own cursor: only the edit made while down.
        let again = try await harness.subscribe("list", mirror: try #require(first.mirror))
        #expect(again.reply?.mode == .resume)
        #expect(try await again.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(again.changesetMessages == [resumed.changesetMessages[1]])

        // And the history carries on.
        try await Self.saved(4, harness, resumed)
        #expect(resumed.changesets.last == Cursor(epoch: epoch, seq: 4))
        #expect(try await harness.stopDaemon() == 0)
    }

    /// The daemon is killed (SIGKILL) at each step of saving version 2, then the file changes
    /// while it is down. Version 2 goes to the journal: once its record is whole (even before
    /// the flush, since the kernel keeps what was written) it is restored, and the edit made while
    /// down follows it. After it is published come its changeset's append to the log, then —
    /// this list is small — a full checkpoint: the journal rebased on slot 1 (version 1), then
    /// version 2 written whole over slot 0 (version 0); a slot torn there is moved aside, and
    /// slot 1 with the journal still leads to version 2. Either way the epoch is kept and every
    /// cursor names the changeset it named before.
    @Test(arguments: [
        ("deltas-written", 2), ("deltas-synced", 2), ("published", 3), ("log-written", 2), ("log-synced", 2),
        ("deltas-rewrite-written", 2), ("deltas-rewrite-synced", 2), ("deltas-rewrite-renamed", 2),
        ("checkpoint-started", 3), ("checkpoint-written", 3), ("checkpoint-synced", 3),
    ])
    func aCrashAtAnyStepOfSavingLosesNothingAndChangesNothingPublished(step: String, occurrence: Int) async throws {
        let harness = try await Self.started(environment: [StateCrashPoints.variable: "\(step):\(occurrence)"])
        let first = try await harness.subscribe("list")
        #expect(try await first.receiveUntil { $0.mirror != nil })
        let atZero = try #require(first.mirror)
        try await Self.saved(1, harness, first)
        let atOne = try #require(first.mirror)
        try EndToEndTests.Subscribers.save(Lists.catalogue(2), to: harness.path("list.csv"))
        #expect(try await harness.daemon?.exited() == 128 + SIGKILL, "\(harness.log)")
        _ = try? await first.receiveUntil(timeout: .seconds(1)) { _ in false }
        let publishedBeforeTheCrash = !["deltas-written", "deltas-synced", "published"].contains(step)
        if !publishedBeforeTheCrash {
            #expect(first.changesets.map(\.seq) == [1], "nothing of version 2 was sent before the crash")
        }

        try EndToEndTests.Subscribers.save(Lists.catalogue(3), to: harness.path("list.csv"))
        try await harness.startDaemon()
        let fromZero = try await harness.subscribe("list", since: nil)
        #expect(try await fromZero.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(fromZero.mirror?.cursor.epoch == atOne.cursor.epoch, "the epoch is kept")

        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .resume)
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.changesets.map(\.seq) == [2, 3])
        if step == "checkpoint-started" {
            #expect(harness.log.contains("checkpoint.0.damaged"), "the torn slot is moved aside: \(harness.log)")
        }
        #expect(resumed.changesets.allSatisfy { $0.epoch == atOne.cursor.epoch })

        // Cursor 1 still names the changeset sent before the crash; no cursor names two.
        let replay = try await harness.subscribe("list", mirror: atZero)
        #expect(try await replay.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(replay.changesetMessages.first == first.changesetMessages.first)
        #expect(Self.cursorsNamingTwoChangesets([first, resumed, replay]).isEmpty)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// The daemon is killed at each step of saving a watch's first version, before it is ready:
    /// restarted, it serves the file, resuming what was completely saved (the first version of
    /// an epoch needs no log), and otherwise starting afresh, the torn slot moved aside.
    @Test(arguments: [
        "checkpoint-started", "checkpoint-written", "checkpoint-synced", "published", "log-rewrite-written", "log-rewrite-synced",
        "log-rewrite-renamed", "deltas-rewrite-written", "deltas-rewrite-synced", "deltas-rewrite-renamed",
    ])
    func aCrashWhileSavingTheFirstVersionStillServesTheFile(step: String) async throws {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("list.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"list.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""])
        let crashing = try DaemonProcess(
            config: harness.configPath, environment: [StateCrashPoints.variable: step], logPath: harness.path("crash.log"))
        #expect(try await crashing.exited() == 128 + SIGKILL, "\(crashing.log)")
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        let expected = step == "checkpoint-started" ? "no saved state" : "state restored"
        #expect(harness.log.contains(expected), "\(harness.log)")
        #expect(try await harness.stopDaemon() == 0)
    }

    /// The cursors under which `subscribers` received different changesets.
    static func cursorsNamingTwoChangesets(_ subscribers: [MirrorSubscriber]) -> [Cursor] {
        var seen: [Cursor: ChangesetMessage] = [:]
        var conflicts: [Cursor] = []
        for message in subscribers.flatMap(\.changesetMessages) {
            if let earlier = seen.updateValue(message, forKey: message.cursor), earlier != message {
                conflicts.append(message.cursor)
            }
        }
        return conflicts
    }

    enum Damage: String, CaseIterable, Sendable {
        case truncated, garbage, deleted, unreadable
    }

    /// Every kind of damage to the log: the daemon starts, logs the file and the problem, moves
    /// the file aside, starts a new epoch and serves the file. (Damage to either slot loses
    /// nothing: the other slot and the journal lead to the newest version, below.)
    @Test(arguments: ["log"], Damage.allCases)
    func damagedStateStartsANewEpochAndServesTheFile(file: String, damage: Damage) async throws {
        let (harness, atOne) = try await Self.startedSavingOneVersion()
        let path = harness.path("state/list/\(file)")
        try Self.damage(path, damage)
        try await harness.startDaemon()
        #expect(harness.log.contains("damaged state"), "\(harness.log)")
        #expect(harness.log.contains(damage == .deleted ? "/log" : "/\(file)"), "\(harness.log)")
        if damage != .deleted {
            #expect(access(path + ".damaged", F_OK) == 0, "the damaged file is moved aside")
        }
        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .snapshot)
        #expect(try await resumed.receiveUntil { $0.snapshots == 1 })
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.mirror?.cursor.epoch != atOne.cursor.epoch, "a new epoch")
        // The new history is saved and survives the next restart.
        let newCursor = try #require(resumed.mirror?.cursor)
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let afterwards = try await harness.subscribe("list", mirror: resumed.mirror)
        #expect(afterwards.reply?.mode == .resume && afterwards.reply?.cursor == newCursor)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// Damage to either slot loses nothing: it is logged and moved aside, and the history
    /// carries on from the other slot and the journal. (`checkpoint.0` holds version 0, the
    /// journal's base, and `checkpoint.1` the newest version, 1, written whole after it was
    /// published, since a single slot is a single copy.)
    @Test(arguments: ["checkpoint.0", "checkpoint.1"], Damage.allCases)
    func aDamagedCheckpointIsSetAsideAndTheHistoryKept(file: String, damage: Damage) async throws {
        let (harness, atOne) = try await Self.startedSavingOneVersion()
        let path = harness.path("state/list/\(file)")
        try Self.damage(path, damage)
        try await harness.startDaemon()
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        if damage != .deleted {
            #expect(harness.log.contains("/\(file).damaged"), "\(harness.log)")
            #expect(access(path + ".damaged", F_OK) == 0, "the damaged file is moved aside")
        }
        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .resume)
        try await Self.saved(2, harness, resumed)
        #expect(resumed.changesets == [Cursor(epoch: atOne.cursor.epoch, seq: 2)])
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let afterwards = try await harness.subscribe("list", mirror: resumed.mirror)
        #expect(afterwards.reply?.mode == .resume)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A daemon that published version 1 of the catalogue, stopped; and the cursor of version 1.
    static func startedSavingOneVersion() async throws -> (DaemonHarness, TestMirror) {
        let harness = try await Self.started()
        let first = try await harness.subscribe("list")
        #expect(try await first.receiveUntil { $0.mirror != nil })
        try await Self.saved(1, harness, first)
        let atOne = try #require(first.mirror)
        #expect(try await harness.stopDaemon() == 0)
        return (harness, atOne)
    }

    /// Damages the state file at `path` in the way `damage` says.
    static func damage(_ path: String, _ damage: Damage) throws {
        let original = try Self.contents(of: path)
        switch damage {
        case .truncated:
            // A log cut inside its last record only lost what the newest slot carries too (a
            // torn append, recovered): cut it inside its header.
            try Self.write(Array(original.prefix(path.hasSuffix("/log") ? 12 : original.count / 2)), to: path)
        case .garbage:
            var generator = SystemRandomNumberGenerator()
            try Self.write((0..<original.count).map { _ in UInt8.random(in: 0...255, using: &generator) }, to: path)
        case .deleted:
            try FileOperations.remove(path)
        case .unreadable:
            try FileOperations.remove(path)
            // Permissions stop no one running as root: a directory in its place cannot be read either.
            if geteuid() == 0 {
                try FileOperations.makeDirectory(path)
            } else {
                try Self.write(original, to: path)
                chmod(path, 0)
            }
        }
    }

    /// A version that cannot be saved is not published; the status says why; once the state can
    /// be written again the version is published.
    @Test func aVersionThatCannotBeSavedWaitsUntilItCanBe() async throws {
        let harness = try await Self.started()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.mirror != nil && $0.status?.state == .ok })
        // A file where the watch's state directory was: nothing can be written under it.
        try FileOperations.rename(harness.path("state/list"), to: harness.path("state/list.away"))
        try FileOperations.write("in the way", to: harness.path("state/list"))
        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: harness.path("list.csv"))
        #expect(try await subscriber.receiveUntil { $0.status?.warnings.contains { $0.message.contains("cannot save the watch's state") } == true })
        #expect(subscriber.changesets.isEmpty, "a version that is not saved is not published")
        #expect(harness.log.contains("cannot save the watch's state"))

        try FileOperations.remove(harness.path("state/list"))
        // The tracker reads again every second until the save succeeds; generous for a loaded
        // machine, and the daemon's log says what happened when it does not (a full run once saw
        // nothing published within 10 s).
        #expect(
            try await subscriber.receiveUntilMirroring(harness.path("list.csv"), options: Self.options, timeout: .seconds(30)),
            "\(subscriber.changesets.map(\.seq)) \(String(describing: subscriber.status))\n\(harness.log)")
        #expect(try await subscriber.receiveUntil { $0.status?.warnings.isEmpty == true })
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A real full disk: the state directory on a small tmpfs (mounting needs root).
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskIsReportedAndTheWatchCatchesUpWhenThereIsSpace() async throws {
        let harness = try DaemonHarness()
        let state = harness.path("state")
        try FileOperations.makeDirectory(state)
        try #require(mount("tmpfs", state, "tmpfs", 0, "size=2m") == 0, "mount: errno \(errno)")
        defer { umount2(state, Int32(MNT_DETACH)) }
        try FileOperations.write(String(repeating: "x", count: 1900 * 1024), to: state + "/filler")
        try FileOperations.write(Lists.catalogue(0), to: harness.path("list.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"list.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.mirror != nil && $0.status?.state == .ok })

        // A version bigger than the space left: it cannot be saved, so it is not published.
        let big = Lists.catalogue(1) + (0..<3000).map { "B\($0),bulk item \($0),1.0,bulk\n" }.joined()
        try EndToEndTests.Subscribers.save(big, to: harness.path("list.csv"))
        #expect(try await subscriber.receiveUntil { $0.status?.warnings.contains { $0.message.contains("No space left on device") } == true })
        #expect(subscriber.changesets.isEmpty)
        #expect(harness.log.contains("No space left on device"))

        // Space returns: the watch catches up by itself.
        try FileOperations.remove(state + "/filler")
        #expect(try await subscriber.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(try await subscriber.receiveUntil { $0.status?.warnings.isEmpty == true })
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A reload moves the watch to a file with the same content (nothing is published); the
    /// history carries on across the next restart, at the new path.
    @Test func aReloadedPathIsRememberedEvenWhenNothingChanged() async throws {
        let harness = try await Self.started()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.mirror != nil && $0.status?.state == .ok })
        try FileOperations.write(Lists.catalogue(0), to: harness.path("moved.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"moved.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""])
        harness.daemon?.send(SIGHUP)
        try await harness.notification("READY=1")
        // The reload's read runs after READY=1: wait until it recorded the new path (in the slot
        // after version 0's) rather than stop before.
        _ = try? await eventually("the reload's version is saved", timeout: .seconds(10)) {
            access(harness.path("state/list/checkpoint.1"), F_OK) == 0
        }
        #expect(access(harness.path("state/list/checkpoint.1"), F_OK) == 0, "the reload's version was never saved")
        #expect(try await harness.stopDaemon() == 0)
        #expect(subscriber.changesets.isEmpty)

        try await harness.startDaemon()
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: subscriber.mirror)
        #expect(resumed.reply?.mode == .resume)
        try await Self.saved(1, harness, resumed, file: "moved.csv")
        #expect(resumed.changesets.map(\.seq) == [1])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aWatchRemovedByAReloadHasItsStateDeleted() async throws {
        let harness = try await Self.started()
        #expect(access(harness.path("state/list/checkpoint.0"), F_OK) == 0)
        try FileOperations.write(Lists.catalogue(0), to: harness.path("other.csv"))
        try harness.writeConfig(["name = \"other\"\npath = \"other.csv\"\nkey = [\"sku\"]"])
        harness.daemon?.send(SIGHUP)
        try await harness.notification("READY=1")
        _ = try? await eventually("the removed watch's state is deleted", timeout: .seconds(10)) {
            access(harness.path("state/list"), F_OK) != 0
        }
        #expect(access(harness.path("state/list"), F_OK) != 0, "the removed watch's state is deleted")
        #expect(access(harness.path("state/other/checkpoint.0"), F_OK) == 0)
        #expect(try await harness.stopDaemon() == 0)
    }

    static func contents(of path: String) throws -> [UInt8] {
        guard let file = fopen(path, "r") else { throw TestFailure(description: "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 {
            bytes += buffer[..<count]
        }
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "w") else { throw TestFailure(description: "cannot create \(path)") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw TestFailure(description: "cannot write \(path)") }
    }
}
