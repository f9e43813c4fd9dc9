import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// The daemon owns its state directory alone, recovers from a full disk by itself, says exactly
/// what it found and did with damaged state, and gives each watch a history of its own.
extension EndToEndTests.Persistence {
    /// Every file under `directory` with its bytes.
    static func tree(_ directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try WatchStateStoreTests.files(in: directory) {
            let path = directory + "/" + name
            var status = stat()
            guard stat(path, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFDIR {
                for (inner, bytes) in try Self.tree(path) { files[name + "/" + inner] = bytes }
            } else {
                files[name] = try Self.contents(of: path)
            }
        }
        return files
    }

    /// A second `listsyncd` on the state directory of a running one — with the same
    /// configuration, or a copy with another socket — exits at once with status 1, naming the
    /// lock file and the first daemon's pid, and writes, moves and damages nothing: the first one
    /// carries on, and its next restart keeps the epoch and resumes.
    @Test(arguments: [false, true])
    func aSecondDaemonOnTheSameStateDirectoryExitsAtOnceAndTouchesNothing(copyWithAnotherSocket: Bool) async throws {
        let harness = try await Self.started()
        let first = try await harness.subscribe("list")
        #expect(try await first.receiveUntil { $0.mirror != nil })
        try await Self.saved(1, harness, first)
        let atOne = try #require(first.mirror)
        // Wait until the log holds version 1 (it is appended after publication): nothing of the
        // first daemon's is still to be written when the tree is taken.
        _ = try await Self.log(at: harness.path("state/list/log"), epoch: atOne.cursor.epoch, reaching: 1)
        // Then version 1 is written whole to the second slot (one slot is one copy): wait until
        // it is there and the tree no longer changes.
        var before = try Self.tree(harness.path("state"))
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(300))
            let now = try Self.tree(harness.path("state"))
            if now == before && access(harness.path("state/list/checkpoint.1"), F_OK) == 0 { break }
            before = now
        }

        var config = harness.configPath
        if copyWithAnotherSocket {
            config = harness.path("copy.toml")
            let original = String(decoding: try Self.contents(of: harness.configPath), as: UTF8.self)
            try FileOperations.write(original.replacingOccurrences(of: harness.socketPath, with: harness.path("other.sock")), to: config)
        }
        let started = ContinuousClock.now
        let second = try DaemonProcess(config: config, logPath: harness.path("second.log"))
        #expect(try await second.exited(timeout: .seconds(10)) == 1, "\(second.log)")
        #expect(ContinuousClock.now - started < .seconds(5), "exits at once")
        let lockPath = harness.path("state/.lock")
        #expect(second.log.contains(lockPath), "\(second.log)")
        #expect(second.log.contains("pid \(try #require(harness.daemon).pid)"), "\(second.log)")
        #expect(try Self.tree(harness.path("state")) == before, "the second daemon changed the state directory")
        if copyWithAnotherSocket {
            #expect(access(harness.path("other.sock"), F_OK) != 0, "the second daemon made no socket")
        }

        // The first daemon carries on, and its history survives its next restart.
        try await Self.saved(2, harness, first)
        #expect(first.changesets.map(\.seq) == [1, 2])
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .resume)
        #expect(try await resumed.receiveUntilMirroring(harness.path("list.csv"), options: Self.options))
        #expect(resumed.changesets == [Cursor(epoch: atOne.cursor.epoch, seq: 2)])
        #expect(resumed.changesetMessages == [first.changesetMessages[1]])
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A version whose slot fits on a small tmpfs but whose changeset the log cannot take: it is
    /// published, the log cannot follow. When the file shrinks, the next version is published
    /// within the settle delay and a second (not held up for good behind the large changeset),
    /// the epoch is kept, the history carries on, and the loss of the history on disk is logged.
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskIsRecoveredFromOnceTheFileShrinks() async throws {
        let harness = try DaemonHarness()
        let state = harness.path("state")
        try FileOperations.makeDirectory(state)
        try #require(mount("tmpfs", state, "tmpfs", 0, "size=2m") == 0, "mount: errno \(errno)")
        defer { umount2(state, Int32(MNT_DETACH)) }
        try FileOperations.write(Lists.catalogue(0), to: harness.path("list.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"list.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.mirror != nil && $0.status?.state == .ok })
        let epoch = try #require(subscriber.mirror?.cursor.epoch)

        // ~250 KB of CSV; its changeset (every row inserted, as JSON) several times that: the slot
        // (list and changeset) fits in 2 MiB, the changeset once more in the log does not.
        let big = Lists.catalogue(1) + (0..<8_000).map { "B\($0),bulk item \($0),1.0,bulk\n" }.joined()
        try EndToEndTests.Subscribers.save(big, to: harness.path("list.csv"))
        #expect(try await subscriber.receiveUntilMirroring(harness.path("list.csv"), options: Self.options, timeout: .seconds(20)))
        #expect(subscriber.changesets.map(\.seq) == [1])

        // The file shrinks: published within the settle delay (100 ms) and a second — allowing a
        // second more for a loaded machine.
        let saved = ContinuousClock.now
        try EndToEndTests.Subscribers.save(Lists.catalogue(2), to: harness.path("list.csv"))
        #expect(try await subscriber.receiveUntilMirroring(harness.path("list.csv"), options: Self.options, timeout: .seconds(2)), "\(harness.log)")
        #expect(ContinuousClock.now - saved < .milliseconds(2100))
        #expect(subscriber.changesets == [Cursor(epoch: epoch, seq: 1), Cursor(epoch: epoch, seq: 2)])
        #expect(harness.log.contains("the disk has no room for the history"), "\(harness.log)")

        // The history carries on, and survives a restart.
        try await Self.saved(3, harness, subscriber)
        #expect(subscriber.changesets.last == Cursor(epoch: epoch, seq: 3))
        #expect(try await subscriber.receiveUntil { $0.status?.warnings.isEmpty == true })
        let atThree = try #require(subscriber.mirror)
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: atThree)
        #expect(resumed.reply?.mode == .resume && resumed.reply?.cursor == atThree.cursor)
        try await Self.saved(4, harness, resumed)
        #expect(resumed.changesets == [Cursor(epoch: epoch, seq: 4)])
        #expect(try await harness.stopDaemon() == 0)
    }

    /// The watch's state directory cannot be read (a file stands where it was): the log says the
    /// checkpoints could not be moved aside and are left in place — never that they were moved.
    @Test func anUnreadableStateDirectoryIsNotSaidToHaveBeenMovedAside() async throws {
        let (harness, _) = try await Self.startedSavingOneVersion()
        try FileOperations.rename(harness.path("state/list"), to: harness.path("state/list.away"))
        try FileOperations.write("in the way", to: harness.path("state/list"))
        // A version that cannot be saved is not published: the watch stays loading.
        try await harness.startDaemon(waitingUntilLoaded: false)
        // The daemon logs it just after READY=1: wait for the line rather than read the log at once.
        _ = try? await eventually("the daemon logs the damaged state") { harness.log.contains("could not be moved aside") }
        #expect(!harness.log.contains("moved aside to"), "\(harness.log)")
        #expect(harness.log.contains("could not be moved aside"), "\(harness.log)")
        #expect(harness.log.contains("left in place"), "\(harness.log)")
        #expect(try Self.contents(of: harness.path("state/list")) == Array("in the way".utf8))
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A clean restart of a watch whose file never read, and of one after its file turned
    /// invalid, finds nothing torn: nothing is reported damaged, and the second's history is kept.
    @Test func aCleanRestartAfterInvalidContentReportsNothingTorn() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write("sku,name\nS1,one,extra\n", to: harness.path("never.csv"))
        try FileOperations.write(Lists.catalogue(0), to: harness.path("list.csv"))
        try harness.writeConfig([
            "name = \"never\"\npath = \"never.csv\"\nkey = [\"sku\"]",
            "name = \"list\"\npath = \"list.csv\"\nkey = [\"sku\"]\nsection_by = \"category\"",
        ])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.mirror != nil && $0.status?.state == .ok })
        let atZero = try #require(subscriber.mirror)
        try EndToEndTests.Subscribers.save("sku,name\nS1,one,extra\n", to: harness.path("list.csv"))
        #expect(try await subscriber.receiveUntil { $0.status?.state == .invalid })
        #expect(try await harness.stopDaemon() == 0)

        try await harness.startDaemon()
        for claim in ["torn", "does not read whole", "damaged", "moved aside"] {
            #expect(!harness.log.contains(claim), "\(claim): \(harness.log)")
        }
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: atZero)
        #expect(resumed.reply?.mode == .resume)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// A log without any checkpoint is reported as what it is — the log, with no checkpoint to
    /// lead to — and moved aside; not as a missing `checkpoint.0`.
    @Test func aLogWithoutCheckpointsIsReportedAsSuch() async throws {
        let (harness, atOne) = try await Self.startedSavingOneVersion()
        try FileOperations.remove(harness.path("state/list/checkpoint.0"))
        try FileOperations.remove(harness.path("state/list/checkpoint.1"))
        try await harness.startDaemon()
        #expect(!harness.log.contains("checkpoint.0: missing") && !harness.log.contains("checkpoint.0 cannot be used"), "\(harness.log)")
        #expect(harness.log.contains("damaged state: \(harness.path("state/list/log")) cannot be used"), "\(harness.log)")
        #expect(harness.log.contains("there is no checkpoint"), "\(harness.log)")
        #expect(harness.log.contains("moved aside to \(harness.path("state/list/log.damaged"))"), "\(harness.log)")
        #expect(access(harness.path("state/list/log.damaged"), F_OK) == 0)
        let resumed = try await harness.subscribe("list", mirror: atOne)
        #expect(resumed.reply?.mode == .snapshot)
        #expect(try await harness.stopDaemon() == 0)
    }

    /// Watches started together have histories of their own: a cursor of one is no cursor of
    /// another, whose subscription starts with a snapshot — at the first start and after a restart.
    @Test func aCursorOfOneWatchDoesNotResumeAnother() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("a.csv"))
        try FileOperations.write(Lists.catalogue(0), to: harness.path("b.csv"))
        try harness.writeConfig([
            "name = \"a\"\npath = \"a.csv\"\nkey = [\"sku\"]\nsection_by = \"category\"",
            "name = \"b\"\npath = \"b.csv\"\nkey = [\"sku\"]\nsection_by = \"category\"",
        ])
        try await harness.startDaemon()
        for restart in [false, true] {
            if restart {
                #expect(try await harness.stopDaemon() == 0)
                try await harness.startDaemon()
            }
            let a = try await harness.subscribe("a")
            #expect(try await a.receiveUntil { $0.mirror != nil })
            let onB = try await harness.subscribe("b", mirror: a.mirror)
            #expect(onB.reply?.mode == .snapshot, "a cursor of watch a resumed watch b")
            #expect(onB.reply?.cursor?.epoch != a.mirror?.cursor.epoch)
        }
        #expect(try await harness.stopDaemon() == 0)
    }
}
