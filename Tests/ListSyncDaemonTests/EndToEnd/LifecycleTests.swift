import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.Lifecycle {
    @Test func aReloadStartsAddedWatchesEndsRemovedOnesAndKeepsTheOthers() async throws {
        let harness = try DaemonHarness()
        for name in ["a", "b", "c"] {
            try FileOperations.write(Lists.catalogue(0), to: harness.path("\(name).csv"))
        }
        func watch(_ name: String) -> String { "name = \"\(name)\"\npath = \"\(name).csv\"\nkey = [\"sku\"]" }
        try harness.writeConfig([watch("a"), watch("b")])
        try await harness.startDaemon()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let onA = try await harness.subscribe("a")
        let onB = try await harness.subscribe("b")
        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: harness.path("a.csv"))
        #expect(try await onA.receiveUntilMirroring(harness.path("a.csv"), options: options))
        #expect(try await onB.receiveUntil { $0.mirror != nil && $0.status?.state == .ok })

        try harness.writeConfig([watch("a"), watch("c")])
        harness.daemon?.send(SIGHUP)
        let reloading = try await harness.notification("RELOADING=1")
        #expect(reloading.contains("MONOTONIC_USEC="))
        try await harness.notification("READY=1")

        #expect(try await onB.receiveUntil { $0.status?.state == .removed })
        let listed = try await harness.connect().call { .list(id: $0) }
        guard case .list(let watches) = listed else { throw TestFailure(description: "not a list") }
        #expect(watches.map(\.name) == ["a", "c"])
        #expect(watches.first?.cursor?.seq == 1)
        // The added watch has a history of its own: cursors of an earlier "c" never resume against it.
        #expect(watches.last?.cursor?.epoch != watches.first?.cursor?.epoch)

        // The kept watch carries on with its sequence; the added one serves a snapshot.
        try EndToEndTests.Subscribers.save(Lists.catalogue(2), to: harness.path("a.csv"))
        #expect(try await onA.receiveUntilMirroring(harness.path("a.csv"), options: options))
        #expect(onA.changesets.map(\.seq) == [1, 2])
        #expect(onA.snapshots == 1)
        let onC = try await harness.subscribe("c")
        #expect(try await onC.receiveUntilMirroring(harness.path("c.csv"), options: options))
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aChangedWatchKeepsItsSubscribersAndPublishesTheDifference() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("a.csv"))
        try FileOperations.write(Lists.catalogue(3), to: harness.path("b.csv"))
        try harness.writeConfig(["name = \"list\"\npath = \"a.csv\"\nkey = [\"sku\"]"])
        try await harness.startDaemon()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntilMirroring(harness.path("a.csv"), options: options))

        try harness.writeConfig(["name = \"list\"\npath = \"b.csv\"\nkey = [\"sku\"]"])
        harness.daemon?.send(SIGHUP)
        try await harness.notification("READY=1")
        // One changeset from the old file's list to the new file's.
        #expect(try await subscriber.receiveUntilMirroring(harness.path("b.csv"), options: options))
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(subscriber.snapshots == 1)
        // The watch now follows the new path.
        try EndToEndTests.Subscribers.save(Lists.catalogue(4), to: harness.path("b.csv"))
        #expect(try await subscriber.receiveUntilMirroring(harness.path("b.csv"), options: options))
        #expect(subscriber.changesets.map(\.seq) == [1, 2])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aReloadWithAnInvalidFileKeepsTheRunningConfiguration() async throws {
        let (harness, file, options) = try await EndToEndTests.Subscribers.started()
        try FileOperations.write("[[watch]]\nname = 12\n", to: harness.configPath)
        harness.daemon?.send(SIGHUP)
        try await harness.notification("RELOADING=1")
        try await harness.notification("READY=1")
        #expect(harness.log.contains("listsyncd.toml:2:1: error: 'name' must be a string, not an integer"))
        let subscriber = try await harness.subscribe("products")
        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aReloadWithAnUnknownKeyIsRefusedAndKeepsTheRunningConfiguration() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write(Lists.catalogue(0), to: harness.path("a.csv"))
        try FileOperations.write(Lists.catalogue(1), to: harness.path("b.csv"))
        try harness.writeConfig(["name = \"a\"\npath = \"a.csv\"\nkey = [\"sku\"]"])
        try await harness.startDaemon()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let subscriber = try await harness.subscribe("a")
        #expect(try await subscriber.receiveUntilMirroring(harness.path("a.csv"), options: options))

        // A typo in the new file: nothing of it applies, not even the watch it adds.
        try harness.writeConfig(["name = \"a\"\npath = \"a.csv\"\nkeys = [\"sku\"]", "name = \"b\"\npath = \"b.csv\""])
        harness.daemon?.send(SIGHUP)
        try await harness.notification("RELOADING=1")
        try await harness.notification("READY=1")
        #expect(harness.log.contains("listsyncd.toml:12:1: error: unknown key \"keys\" in [[watch]]; did you mean \"key\"?"), "\(harness.log)")
        #expect(harness.log.contains("keeping the running one"))
        let listed = try await harness.connect().call { .list(id: $0) }
        guard case .list(let watches) = listed else { throw TestFailure(description: "not a list") }
        #expect(watches.map(\.name) == ["a"])
        // The running watch carries on with its sequence.
        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: harness.path("a.csv"))
        #expect(try await subscriber.receiveUntilMirroring(harness.path("a.csv"), options: options))
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func checkConfigRejectsAnUnknownKeyWithASuggestion() async throws {
        let harness = try DaemonHarness()
        try harness.writeConfig(["name = \"x\"\npath = \"x.csv\"\nsection-by = \"c\""], extra: "socket_mod = \"0600\"")
        let check = try DaemonProcess(
            executable: try DaemonProcess.binaryPath, arguments: ["--check-config", harness.configPath], logPath: harness.path("check.log"))
        #expect(try await check.exited() == 1)
        #expect(check.log.contains("listsyncd.toml:7:1: error: unknown key \"socket_mod\" at the top level; did you mean \"socket_mode\"?"), "\(check.log)")
        #expect(check.log.contains("error: unknown key \"section-by\" in [[watch]]; did you mean \"section_by\"?"))
        #expect(!check.log.contains("OK"))
    }

    @Test func aMissingSocketDirectoryIsTheFirstThingReported() async throws {
        let harness = try DaemonHarness()
        // A file big enough that its tracker is still reading when the start fails.
        var text = "sku,name\n"
        for row in 0..<300_000 { text += "S\(row),item \(row)\n" }
        try FileOperations.write(text, to: harness.path("big.csv"))
        let socket = harness.path("no/such/directory/d.sock")
        try FileOperations.write(
            "socket = \"\(socket)\"\nstate_directory = \"\(harness.path("state"))\"\n[[watch]]\nname = \"big\"\npath = \"big.csv\"\nkey = \"sku\"\n",
            to: harness.configPath)
        let daemon = try DaemonProcess(config: harness.configPath, logPath: harness.path("daemon.log"))
        #expect(try await daemon.exited() == 1)
        let problems = daemon.log.split(separator: "\n").filter { $0.contains(" error ") || $0.contains(" critical ") }
        #expect(problems.count == 1, "\(daemon.log)")
        #expect(problems.first?.contains("the socket's directory \(harness.path("no/such/directory")) does not exist and cannot be created") == true, "\(daemon.log)")
        #expect(!daemon.log.contains("CancellationError"))
    }

    @Test func shutdownSaysGoodbyeAndExitsZero() async throws {
        let (harness, _, _) = try await EndToEndTests.Subscribers.started()
        let subscriber = try await harness.subscribe("products")
        #expect(try await subscriber.receiveUntil { $0.mirror != nil })
        let start = ContinuousClock.now
        harness.daemon?.send(SIGTERM)
        try await harness.notification("STOPPING=1")
        let last = try await subscriber.client.receiveUntilClosed()
        #expect(last.last == .goodbye(reason: .shutdown))
        #expect(try await harness.daemon?.exited() == 0)
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(access(harness.socketPath, F_OK) != 0, "the socket file is removed")
    }

    @Test func refusesToStealTheSocketOfARunningDaemon() async throws {
        let (harness, _, _) = try await EndToEndTests.Subscribers.started()
        // A state directory of its own, or it would stop at the state directory's lock first.
        let original = String(decoding: try EndToEndTests.Persistence.contents(of: harness.configPath), as: UTF8.self)
        try FileOperations.write(original.replacingOccurrences(of: harness.path("state"), with: harness.path("state2")), to: harness.path("second.toml"))
        let second = try DaemonProcess(config: harness.path("second.toml"), logPath: harness.path("second.log"))
        #expect(try await second.exited() == 1)
        #expect(second.log.contains("another process is listening on this socket"))
        // The first daemon still serves.
        #expect(try await harness.connect().call { .ping(id: $0) } == .pong)
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func checkConfigReportsErrorsWithLineNumbers() async throws {
        let harness = try DaemonHarness()
        try FileOperations.write("socket = 5\n[[watch]]\nname = \"x\"\npath = \"/tmp/x.unknown\"\n", to: harness.configPath)
        let check = try DaemonProcess(executable: try DaemonProcess.binaryPath, arguments: ["--check-config", harness.configPath], logPath: harness.path("check.log"))
        #expect(try await check.exited() == 1)
        #expect(check.log.contains("listsyncd.toml:1:1: error: 'socket' must be a string, not an integer"))
        #expect(check.log.contains("listsyncd.toml:4:1: error: cannot tell the format"))

        try harness.writeConfig(["name = \"x\"\npath = \"x.csv\""])
        let good = try DaemonProcess(executable: try DaemonProcess.binaryPath, arguments: ["--check-config", harness.configPath], logPath: harness.path("good.log"))
        #expect(try await good.exited() == 0)
    }

    /// `systemd-socket-activate` listens, starts the daemon on the first connection with the
    /// listening descriptor, and forwards notifications to a datagram socket standing in for systemd.
    @Test func socketActivationNotificationsAndWatchdog() async throws {
        let harness = try DaemonHarness()
        // Large enough that loading takes a noticeable moment.
        var text = "sku,name,category\n"
        for row in 0..<200_000 { text += "S\(row),item \(row),c\(row % 7)\n" }
        try FileOperations.write(text, to: harness.path("big.csv"))
        try harness.writeConfig(["name = \"big\"\npath = \"big.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""])
        let activationSocket = harness.path("act.sock")
        let daemon = try DaemonProcess(
            executable: "/usr/bin/systemd-socket-activate",
            arguments: [
                "-l", activationSocket, "--fdname=api", "-E", "NOTIFY_SOCKET=\(harness.directory.path)/notify", "-E", "WATCHDOG_USEC=400000",
                try DaemonProcess.binaryPath, "--config", harness.configPath,
            ],
            logPath: harness.path("daemon.log"))

        // The first connection starts the daemon, which serves it on the passed descriptor.
        let client = try await ProtocolClient.connect(to: activationSocket)
        try client.send(.hello(ClientHello()))
        try await harness.notification("READY=1")
        guard case .hello = try await client.receive() else { throw TestFailure(description: "no hello") }
        // READY=1 came as soon as the daemon served the socket; the watch loads meanwhile.
        var watches: [WatchSummary] = []
        let loaded = ContinuousClock.now + .seconds(60)
        repeat {
            guard case .list(let listed) = try await client.call({ .list(id: $0) }) else { throw TestFailure(description: "no list") }
            watches = listed
        } while watches.map(\.state) == [.loading] && ContinuousClock.now < loaded
        #expect(watches.map(\.state) == [.ok])
        #expect(watches.first?.rows == 200_000)
        #expect(access(harness.socketPath, F_OK) != 0, "the configured path is not bound when activated")

        // STATUS= follows the subscriber count.
        _ = try await client.call { .subscribe(id: $0, watch: "big", since: nil) }
        try await harness.notification("STATUS=serving 1 watch to 1 subscriber on 1 connection")
        _ = try await client.call { .unsubscribe(id: $0, watch: "big") }
        try await harness.notification("STATUS=serving 1 watch to 0 subscribers on 1 connection")

        // WATCHDOG=1 every half WATCHDOG_USEC (200 ms).
        harness.takePendingNotifications()
        var pings: [ContinuousClock.Instant] = []
        while pings.count < 4 {
            try await harness.notification("WATCHDOG=1")
            pings.append(.now)
        }
        let intervals = zip(pings.dropFirst(), pings).map { $0 - $1 }
        // Each gap under the watchdog's 400 ms with room; on average not more often than every
        // 100 ms. The times are the test's receipts: one read late and the next at once make one
        // short gap (0.02 s seen at load) that says nothing of the daemon's pace.
        #expect(intervals.allSatisfy { $0 < .milliseconds(600) }, "\(intervals)")
        #expect(intervals.reduce(.zero, +) / intervals.count > .milliseconds(100), "\(intervals)")

        daemon.send(SIGHUP)
        try await harness.notification("RELOADING=1")
        try await harness.notification("READY=1")
        let reloadOrder = harness.notificationLog.filter { $0.contains("RELOADING=1") || $0.contains("READY=1") }
        #expect(reloadOrder.suffix(2).map { $0.contains("RELOADING=1") } == [true, false])

        daemon.send(SIGTERM)
        try await harness.notification("STOPPING=1")
        #expect(try await daemon.exited() == 0, "\(daemon.log)")
    }
}

extension EndToEndTests.Lifecycle {
    /// Runs a Python client as user `nobody` that says hello and prints the first line it gets.
    /// It waits a moment before its hello, so that a refusal is already sent: the daemon must
    /// still take the hello (its close lingers) for the client to read the reason.
    static func firstLineReadAsNobody(_ harness: DaemonHarness) async throws -> String {
        let client = try Self.helloAsNobody(harness)
        #expect(try await client.exited() == 0, "\(client.log)")
        return client.log
    }

    /// Starts the Python client of ``firstLineReadAsNobody(_:)``.
    private static func helloAsNobody(_ harness: DaemonHarness) throws -> DaemonProcess {
        let script = """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            time.sleep(0.3)
            s.sendall(b'{"type":"hello","protocol":[1]}\\n')
            print(s.makefile().readline().strip())
            """
        return try DaemonProcess(
            executable: "/usr/bin/setpriv",
            arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, harness.socketPath],
            logPath: harness.path("nobody-\(UInt32.random(in: 0...UInt32.max)).log"))
    }

    @Test func peersOutsideTheAllowlistAreRefusedUntilAllowed() async throws {
        let harness = try DaemonHarness()
        chmod(harness.directory.path, 0o755)
        try FileOperations.write(Lists.catalogue(0), to: harness.path("a.csv"))
        let watch = "name = \"a\"\npath = \"a.csv\""
        try harness.writeConfig([watch], extra: "socket_mode = \"0666\"")
        try await harness.startDaemon()
        #expect(try await Self.firstLineReadAsNobody(harness).contains(#""code":"not_permitted""#))

        try harness.writeConfig([watch], extra: "socket_mode = \"0666\"\nallow_uids = [65534]")
        harness.daemon?.send(SIGHUP)
        try await harness.notification("RELOADING=1")
        try await harness.notification("READY=1")
        #expect(try await Self.firstLineReadAsNobody(harness).contains(#""type":"hello""#))
        #expect(try await harness.stopDaemon() == 0)
    }
}
