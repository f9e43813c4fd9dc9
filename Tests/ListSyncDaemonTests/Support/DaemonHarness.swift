import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
@testable import ListSyncDaemon

/// A real `listsyncd` on real files in a scratch directory, with a notification socket standing
/// in for systemd, for end-to-end tests. Its waits hold no thread of the cooperative pool: they
/// poll with `Task.sleep` or await a socket's readiness.
final class DaemonHarness {
    let directory: ScratchDirectory
    let notifications: DatagramListener
    private(set) var daemon: DaemonProcess?
    /// Every notification datagram received so far, in order.
    private(set) var notificationLog: [String] = []

    var socketPath: String { self.directory.path + "/d.sock" }
    var configPath: String { self.directory.path + "/listsyncd.toml" }

    /// Settle delays short enough for quick tests, long enough for every save strategy.
    static let tunables = """
        settle_after_close_ms = 10
        settle_after_modify_ms = 100
        settle_after_disappearance_ms = 60
        reconcile_interval_ms = 1000
        """

    init() throws {
        self.directory = try ScratchDirectory()
        self.notifications = try DatagramListener(notifySocket: self.directory.path + "/notify")
    }

    func path(_ name: String) -> String {
        self.directory.path + "/" + name
    }

    /// Writes a configuration with `watches` (TOML `[[watch]]` bodies) and `tunables` (by
    /// default the quick ones).
    func writeConfig(_ watches: [String], extra: String = "", tunables: String = DaemonHarness.tunables) throws {
        let body = watches.map { "[[watch]]\n\($0)\n" }.joined(separator: "\n")
        try FileOperations.write("socket = \"\(self.socketPath)\"\nstate_directory = \"\(self.path("state"))\"\n\(tunables)\n\(extra)\n\n\(body)", to: self.configPath)
    }

    /// Starts the daemon on the configuration and waits for `READY=1` (sent as soon as it
    /// listens), then, unless told not to, until no watch is `loading` any more: every watch has
    /// its history back and has read its file once, as tests that edit files next expect.
    func startDaemon(environment: [String: String] = [:], waitingUntilLoaded: Bool = true) async throws {
        self.daemon = try self.daemonProcess(environment: environment)
        try await self.notification("READY=1")
        if waitingUntilLoaded {
            try await self.watchesLoaded()
        }
    }

    /// Waits until no watch is `loading`.
    func watchesLoaded(timeout: Duration = .seconds(120)) async throws {
        let client = try await self.connect()
        var loading: [String] = []
        do {
            try await eventually("no watch is loading", timeout: timeout) {
                guard case .list(let watches) = try await client.call({ .list(id: $0) }) else { throw TestFailure(description: "no list") }
                loading = watches.filter { $0.state == .loading }.map(\.name)
                return loading.isEmpty
            }
        } catch let failure as ListSyncTestSupport.TestFailure {
            throw TestFailure(description: "watches still loading after \(timeout): \(loading) (\(failure))")
        }
    }

    /// Receives notifications until one has `assignment` (e.g. `READY=1`); returns that datagram.
    /// Fails after `timeout` even while other notifications keep coming (a watchdog pings every
    /// few hundred milliseconds, forever).
    @discardableResult
    func notification(_ assignment: String, timeout: Duration = .seconds(60)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let datagram: String
            do {
                guard ContinuousClock.now < deadline else { throw TestFailure(description: "no \(assignment) within \(timeout)") }
                datagram = try await self.notifications.nextDatagram()
            } catch {
                throw self.missingNotification(assignment)
            }
            if self.record(datagram, hasAssignment: assignment) { return datagram }
        }
    }

    /// Records the notifications already queued without waiting, so the next ones are timed as they arrive.
    func takePendingNotifications() {
        while let datagram = try? self.notifications.receiveQueued() {
            self.notificationLog.append(datagram)
        }
    }

    /// A subscriber to `watch`; with `mirror`, one that resumes from that mirror's cursor.
    func subscribe(_ watch: String, since: Cursor? = nil, mirror: TestMirror? = nil, protocols: [Int] = [1]) async throws -> MirrorSubscriber {
        try await MirrorSubscriber.connect(socketPath: self.socketPath, watch: watch, since: since, mirror: mirror, protocols: protocols)
    }

    /// A client that has said hello.
    func connect() async throws -> ProtocolClient {
        let client = try await ProtocolClient.connect(to: self.socketPath)
        try await client.hello()
        return client
    }

    /// Stops the daemon with SIGTERM and returns its exit code.
    func stopDaemon() async throws -> Int32 {
        guard let daemon = self.daemon else { return 0 }
        daemon.send(SIGTERM)
        return try await daemon.exited()
    }

    var log: String { self.daemon?.log ?? "" }

    /// Starts `listsync mirror WATCH --output OUTPUT` on the daemon's socket, logging to
    /// `mirror.log`; the caller stops it (SIGTERM).
    func startMirror(of watch: String, output: String) throws -> DaemonProcess {
        try DaemonProcess(
            executable: try DaemonProcess.cliPath, arguments: ["mirror", watch, "--socket", self.socketPath, "--output", output],
            logPath: self.path("mirror.log"))
    }

    /// What `listsync snapshot WATCH` prints now (JSON), read as a document; `nil` when it fails.
    func snapshot(of watch: String) async throws -> ListDocument? {
        let snapshot = try self.snapshotProcess(of: watch)
        guard try await snapshot.exited(timeout: .seconds(30)) == 0 else { return nil }
        return try? ListReader(options: ReadOptions(format: .json)).read(bytes: Array(snapshot.log.utf8)).document
    }

    /// Waits until the JSON file `path` (a `listsync mirror`'s output) holds what `listsync
    /// snapshot WATCH` prints; `false` when it still does not after `timeout`.
    func waitUntilFile(_ path: String, matchesSnapshotOf watch: String, timeout: Duration = .seconds(10)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let mirrored = try? ListReader(options: ReadOptions(format: .json)).read(contentsOfFile: path).document,
                try await self.snapshot(of: watch) == mirrored
            {
                return true
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    // MARK: Steps

    private func daemonProcess(environment: [String: String]) throws -> DaemonProcess {
        try DaemonProcess(
            config: self.configPath, environment: environment.merging(["NOTIFY_SOCKET": self.directory.path + "/notify"]) { $1 },
            logPath: self.path("daemon.log"))
    }

    /// Logs `datagram`; whether it has `assignment`.
    private func record(_ datagram: String, hasAssignment assignment: String) -> Bool {
        self.notificationLog.append(datagram)
        return datagram.split(separator: "\n").contains(Substring(assignment))
    }

    private func missingNotification(_ assignment: String) -> TestFailure {
        TestFailure(description: "no \(assignment) (received \(self.notificationLog)); log:\n\(self.daemon?.log ?? "")")
    }

    private func snapshotProcess(of watch: String) throws -> DaemonProcess {
        try DaemonProcess(
            executable: try DaemonProcess.cliPath, arguments: ["snapshot", watch, "--socket", self.socketPath, "--output-format", "json"],
            logPath: self.path("snapshot-\(UInt32.random(in: 0...UInt32.max)).log"))
    }
}
