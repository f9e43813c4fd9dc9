import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Reloads that change how a watch reads a file that does not change: the file is read again at
/// once with the new options, as a changeset, or as a snapshot under a new epoch when the records
/// are identified differently.
extension EndToEndTests.Reload {
    /// Writes the configuration with `watch` as the only `[[watch]]` body, sends SIGHUP and waits
    /// until the daemon is ready again.
    static func reloaded(_ harness: DaemonHarness, to watch: String) async throws {
        // Status notifications of earlier connections may fill the datagram queue, which would
        // make the daemon drop RELOADING=1.
        harness.takePendingNotifications()
        try harness.writeConfig([watch])
        harness.daemon?.send(SIGHUP)
        try await harness.notification("RELOADING=1")
        try await harness.notification("READY=1")
    }

    /// The watches as `list` shows them.
    static func listed(_ harness: DaemonHarness) async throws -> [WatchSummary] {
        guard case .list(let watches) = try await harness.connect().call({ .list(id: $0) }) else {
            throw TestFailure(description: "not a list")
        }
        return watches
    }

    /// A daemon serving `catalogue.csv` (version 0) as `list` with `watch`'s options, and a
    /// subscriber that has applied version 1, so the watch has a history to drop.
    static func started(_ watch: String, options: ReadOptions) async throws -> (DaemonHarness, String, MirrorSubscriber) {
        let harness = try DaemonHarness()
        let file = harness.path("catalogue.csv")
        try FileOperations.write(Lists.catalogue(0), to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"catalogue.csv\"\n\(watch)"])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        #expect(subscriber.changesets.map(\.seq) == [1])
        return (harness, file, subscriber)
    }

    @Test func aNewKeyStartsANewEpochAndSubscribersGetASnapshot() async throws {
        let (harness, file, subscriber) = try await Self.started("key = [\"sku\"]", options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"]))
        let oldCursor = try #require(subscriber.mirror?.cursor)

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.csv\"\nkey = [\"name\"]")
        let byName = ReadOptions(format: .csv(delimiter: .comma), key: ["name"])
        #expect(try await subscriber.receiveUntil { $0.snapshots == 2 })
        #expect(try await subscriber.receiveUntilMirroring(file, options: byName))
        let newCursor = try #require(subscriber.mirror?.cursor)
        #expect(newCursor.epoch != oldCursor.epoch)
        #expect(newCursor.seq == oldCursor.seq + 1)
        #expect(try await Self.listed(harness).map(\.cursor) == [newCursor])
        #expect(try await Self.listed(harness).map(\.state) == [.ok])
        #expect(harness.log.contains("fields=key"), "\(harness.log)")

        // A cursor of the old epoch never resumes: a new subscriber gets a snapshot.
        let resuming = try await harness.subscribe("list", since: oldCursor)
        #expect(resuming.reply?.mode == .snapshot)
        #expect(resuming.reply?.cursor == newCursor)

        // The new epoch carries on with changesets.
        try EndToEndTests.Subscribers.save(Lists.catalogue(2), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: byName))
        #expect(subscriber.changesets.last == Cursor(epoch: newCursor.epoch, seq: newCursor.seq + 1))
        #expect(subscriber.snapshots == 2)

        // `listsync snapshot` sees the new epoch's version as current and prints it.
        let snapshot = try DaemonProcess(
            executable: try DaemonProcess.cliPath,
            arguments: ["snapshot", "list", "--socket", harness.socketPath, "--output-format", "csv"], logPath: harness.path("snapshot.log"))
        #expect(try await snapshot.exited() == 0, "\(snapshot.log)")
        #expect(snapshot.log.hasPrefix("sku,name,price,category\n"), "\(snapshot.log)")
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func listsyncMirrorFollowsANewEpochAndEqualsTheSnapshot() async throws {
        let (harness, file, _) = try await Self.started("key = [\"sku\"]", options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"]))
        let output = harness.path("mirror.json")
        let mirror = try DaemonProcess(
            executable: try DaemonProcess.cliPath, arguments: ["mirror", "list", "--socket", harness.socketPath, "--output", output],
            logPath: harness.path("mirror.log"))
        // Ended with the test: SIGTERM now, SIGKILL and a reaping off the pool if it lingers.
        defer { mirror.send(SIGTERM) }
        #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "list"), "\(mirror.log)")

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.csv\"\nkey = [\"name\"]\nsection_by = \"category\"")
        #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "list"), "\(mirror.log)")
        try EndToEndTests.Subscribers.save(Lists.catalogue(2), to: file)
        #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "list"), "\(mirror.log)")
        #expect(!mirror.log.contains("resync"), "\(mirror.log)")
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aNewSectionColumnStartsANewEpoch() async throws {
        let (harness, file, subscriber) = try await Self.started("key = [\"sku\"]", options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"]))
        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.csv\"\nkey = [\"sku\"]\nsection_by = \"category\"")
        let sectioned = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"], sectionBy: "category")
        #expect(try await subscriber.receiveUntil { $0.snapshots == 2 })
        #expect(try await subscriber.receiveUntilMirroring(file, options: sectioned))
        #expect(subscriber.mirror?.sectioned == true)
        #expect(try await Self.listed(harness).map(\.sectioned) == [true])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aNewFormatStartsANewEpoch() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("catalogue.txt")
        try FileOperations.write(Lists.catalogue(0, delimiter: "\t"), to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"catalogue.txt\"\nformat = \"csv\""])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        // Read as comma-separated, each line is one field.
        #expect(try await subscriber.receiveUntilMirroring(file, options: ReadOptions(format: .csv(delimiter: .comma))))
        let cursor = try #require(subscriber.mirror?.cursor)

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.txt\"\nformat = \"tsv\"")
        #expect(try await subscriber.receiveUntil { $0.snapshots == 2 })
        #expect(try await subscriber.receiveUntilMirroring(file, options: ReadOptions(format: .csv(delimiter: .tab))))
        #expect(subscriber.mirror?.cursor.epoch != cursor.epoch)
        #expect(try await Self.listed(harness).map(\.format) == ["tsv"])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aKeyThatNamesNoColumnMakesTheWatchInvalidAndKeepsTheLastGoodVersion() async throws {
        let keyed = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let (harness, file, subscriber) = try await Self.started("key = [\"sku\"]", options: keyed)
        let cursor = try #require(subscriber.mirror?.cursor)

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.csv\"\nkey = [\"skew\"]")
        #expect(try await subscriber.receiveUntil { $0.status?.state == .invalid })
        let error = try #require(subscriber.status?.error)
        #expect(error.message.contains("skew"), "\(error)")
        #expect(error.position?.line == 1)
        let listed = try await Self.listed(harness)
        #expect(listed.map(\.state) == [.invalid])
        // The last good version stays live, under its own cursor, as for any invalid file.
        #expect(listed.map(\.cursor) == [cursor])
        #expect(subscriber.snapshots == 1)

        // Fixing the configuration starts the new epoch at once, the file still unchanged.
        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.csv\"\nkey = [\"name\"]")
        #expect(try await subscriber.receiveUntil { $0.status?.state == .ok && $0.snapshots == 2 })
        #expect(try await subscriber.receiveUntilMirroring(file, options: ReadOptions(format: .csv(delimiter: .comma), key: ["name"])))
        #expect(subscriber.mirror?.cursor.epoch != cursor.epoch)
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aWatchInvalidBecauseOfItsOptionsIsReadAgainWithTheNewOnes() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("ragged.csv")
        try FileOperations.write("id,name,note\n1,a,x\n2,b\n3,c,z\n", to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"ragged.csv\"\nkey = \"id\""])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.status?.state == .invalid })
        #expect(try await Self.listed(harness).map(\.cursor) == [nil])

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"ragged.csv\"\nkey = \"id\"\nragged_rows = \"pad\"")
        #expect(try await subscriber.receiveUntil { $0.status?.state == .ok })
        #expect(try await subscriber.receiveUntilMirroring(file, options: ReadOptions(format: .csv(delimiter: .comma), key: ["id"], raggedRows: .pad)))
        #expect(try await Self.listed(harness).map(\.rows) == [3])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func newIgnoredFieldsArePublishedAsAChangeset() async throws {
        let keyed = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let (harness, file, subscriber) = try await Self.started("key = [\"sku\"]", options: keyed)
        let cursor = try #require(subscriber.mirror?.cursor)

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"catalogue.csv\"\nkey = [\"sku\"]\nignore = [\"price\"]")
        #expect(try await subscriber.receiveUntil { $0.changesets.count == 2 })
        #expect(try await subscriber.receiveUntilMirroring(file, options: ReadOptions(format: .csv(delimiter: .comma), key: ["sku"], ignore: ["price"])))
        #expect(subscriber.changesets.last == Cursor(epoch: cursor.epoch, seq: cursor.seq + 1))
        #expect(subscriber.snapshots == 1)
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aNewDelimiterReadsTheColumnsAsAChangeset() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("semicolons.csv")
        try FileOperations.write(Lists.catalogue(0, delimiter: ";"), to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"semicolons.csv\""])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        // Read with commas, the file is one column named "sku;name;price;category".
        #expect(try await subscriber.receiveUntilMirroring(file, options: ReadOptions(format: .csv(delimiter: .comma))))

        try await Self.reloaded(harness, to: "name = \"list\"\npath = \"semicolons.csv\"\ndelimiter = \"semicolon\"")
        let semicolons = ReadOptions(format: .csv(delimiter: .semicolon))
        #expect(try await subscriber.receiveUntil { $0.changesets.count == 1 })
        #expect(try await subscriber.receiveUntilMirroring(file, options: semicolons))
        #expect(subscriber.snapshots == 1)
        // The changeset carries the new columns: the subscriber's list has them, not the one
        // column the comma-separated reading gave.
        #expect(subscriber.mirror?.schema.columns == ["sku", "name", "price", "category"])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aSemicolonWatchReadsItsColumnsFromTheStart() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("semicolons.csv")
        try FileOperations.write(Lists.catalogue(0, delimiter: ";"), to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"semicolons.csv\"\nkey = \"sku\"\ndelimiter = \"semicolon\""])
        try await harness.startDaemon()
        let options = ReadOptions(format: .csv(delimiter: .semicolon), key: ["sku"])
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        try EndToEndTests.Subscribers.save(Lists.catalogue(1, delimiter: ";"), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try await harness.stopDaemon() == 0)
    }
}

extension EndToEndTests.Reload {
    /// A reload that names another state directory and adds a watch: the setting takes effect
    /// only after a restart (as the log says), so the added watch keeps its state in the
    /// directory the daemon holds locked, and the named one is not even created.
    @Test func anAddedWatchKeepsItsStateInTheLockedDirectoryWhenTheFileNamesAnother() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("catalogue.csv"))
        try FileOperations.write(Lists.catalogue(1), to: harness.path("second.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"catalogue.csv\""])
        try await harness.startDaemon()

        let watches = ["list", "second"].map { "[[watch]]\nname = \"\($0)\"\npath = \"\($0 == "list" ? "catalogue" : $0).csv\"\n" }
        try FileOperations.write(
            "socket = \"\(harness.socketPath)\"\nstate_directory = \"\(harness.path("elsewhere"))\"\n\(DaemonHarness.tunables)\n\n\(watches.joined(separator: "\n"))",
            to: harness.configPath)
        harness.takePendingNotifications()
        harness.daemon?.send(SIGHUP)
        try await harness.notification("RELOADING=1")
        try await harness.notification("READY=1")
        try await eventually("the added watch is loaded") { try await Self.listed(harness).map(\.state) == [.ok, .ok] }

        #expect(harness.log.contains("takes effect only after a restart") && harness.log.contains("state_directory"), "\(harness.log)")
        #expect(access(harness.path("state/second"), F_OK) == 0, "the added watch's state is in the locked directory")
        #expect(access(harness.path("elsewhere"), F_OK) != 0, "the directory named in the file is not used before a restart")
        #expect(try await harness.stopDaemon() == 0)
    }
}
