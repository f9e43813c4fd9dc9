import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// The daemon serves its socket as soon as it starts, while large watches restore their history.
extension EndToEndTests.Persistence {
    /// A keyed CSV list of `rows` rows; `changed` rows get another price.
    static func bigList(rows: Int, changed: Set<Int> = []) -> String {
        var text = "sku,name,price\n"
        text.reserveCapacity(rows * 24)
        for row in 0..<rows {
            text += "S\(row),item \(row),\(changed.contains(row) ? "9.99" : "1.00")\n"
        }
        return text
    }

    @Test func clientsAreServedWhileALargeWatchRestoresAndResumeOnceItsHistoryIsBack() async throws {
        let harness = try DaemonHarness()
        // The restore is held below until the test releases it, so the list need not be long
        // for the requests to come during it: 30,000 rows still make a history worth restoring.
        let rows = 30_000
        try FileOperations.write(Self.bigList(rows: rows), to: harness.path("big.csv"))
        try harness.writeConfig(["name = \"big\"\npath = \"big.csv\"\nkey = [\"sku\"]"])
        try await harness.startDaemon()
        let first = try await harness.subscribe("big")
        #expect(try await first.receiveUntil(timeout: .seconds(120)) { $0.mirror != nil })
        let atZero = try #require(first.mirror)
        #expect(try await harness.stopDaemon() == 0)

        // Edited while the daemon is down: the next seq once it is back.
        try FileOperations.write(Self.bigList(rows: rows, changed: [7]), to: harness.path("big.csv"))
        // The restore is held (a test hook) until `release` exists, so what follows happens
        // during it however fast this machine restores.
        let release = harness.path("release-restore")
        try await harness.startDaemon(environment: [RestoreHold.variable: release], waitingUntilLoaded: false)
        // READY=1 came as soon as the socket was served, before the history was back.
        #expect(!harness.log.contains("state restored"), "\(harness.log)")

        // A client is answered at once: the watch is loading.
        let client = try await harness.connect()
        guard case .list(let watches) = try await client.call({ .list(id: $0) }) else { throw TestFailure(description: "no list") }
        #expect(watches.map(\.state) == [.loading])
        let listed = try DaemonProcess(
            executable: try DaemonProcess.cliPath, arguments: ["list", "--format", "ndjson", "--socket", harness.socketPath],
            logPath: harness.path("list.log"))
        #expect(try await listed.exited(timeout: .seconds(30)) == 0, "\(listed.log)")
        #expect(listed.log.contains(#""state":"loading""#), "\(listed.log)")

        // A snapshot asked for during the restore (checked below).
        let snapshot = try DaemonProcess(
            executable: try DaemonProcess.cliPath, arguments: ["snapshot", "big", "--output-format", "csv", "--socket", harness.socketPath],
            logPath: harness.path("snapshot.log"))
        #expect(!harness.log.contains("state restored"), "the restore was not held: \(harness.log)")

        // The restore goes on. A subscribe is answered once the history is back: the cursor
        // from before the restart resumes with exactly the edit made while down.
        try FileOperations.write("", to: release)
        let resumed = try await harness.subscribe("big", mirror: atZero)
        #expect(resumed.reply?.mode == .resume, "\(harness.log)")
        #expect(try await resumed.receiveUntil(timeout: .seconds(60)) { $0.changesets.count == 1 })
        #expect(resumed.changesets == [Cursor(epoch: atZero.cursor.epoch, seq: 1)])
        #expect(resumed.snapshots == 0)

        // And a snapshot asked for during the restore prints the list once it is read.
        #expect(try await snapshot.exited(timeout: .seconds(120)) == 0)
        #expect(snapshot.log.split(separator: "\n").count == rows + 1)
        #expect(snapshot.log.contains("S7,item 7,9.99"))
        #expect(try await harness.stopDaemon() == 0)
    }
}
