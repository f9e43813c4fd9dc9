import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.Subscribers {
    /// Polls `process`'s output until it contains `text`; `false` after `timeout`.
    static func outputAppears(_ process: DaemonProcess, containing text: String, timeout: Duration = .seconds(10)) async -> Bool {
        (try? await eventually("the output contains \(text)", timeout: timeout) { process.log.contains(text) }) != nil
    }

    @Test func repeatedKeysAreAWarningInTheStatusTheListAndTheCommandLine() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("catalogue.csv")
        // Rows 4 and 5 repeat the skus of rows 2 and 3.
        try FileOperations.write("sku,name\nA,one\nB,two\nA,again\nB,too\n", to: file)
        try harness.writeConfig(["name = \"products\"\npath = \"catalogue.csv\"\nkey = \"sku\""])
        try await harness.startDaemon()
        let expected = WatchProblem(
            message: "2 records repeat the key of an earlier one; the first is here", position: SourcePosition(line: 4, column: 1, byteOffset: 21))

        let subscriber = try await harness.subscribe("products")
        #expect(try await subscriber.receiveUntil { $0.status?.state == .ok })
        #expect(subscriber.status?.warnings == [expected])
        #expect(try await EndToEndTests.Reload.listed(harness).map(\.warnings) == [[expected]])

        let cli = try DaemonProcess.cliPath
        let list = try DaemonProcess(executable: cli, arguments: ["list", "--socket", harness.socketPath], logPath: harness.path("list.log"))
        #expect(try await list.exited() == 0)
        #expect(list.log.contains("products: warning: 4:1: 2 records repeat the key of an earlier one; the first is here\n"), "\(list.log)")

        let subscribe = try DaemonProcess(
            executable: cli, arguments: ["subscribe", "products", "--socket", harness.socketPath, "--format", "human", "--color", "never"],
            logPath: harness.path("subscribe.log"))
        #expect(await Self.outputAppears(subscribe, containing: "✓ products ok; warning: 4:1: 2 records repeat the key"), "\(subscribe.log)")

        // Once the keys are unique again, the status says so.
        try Self.save("sku,name\nA,one\nB,two\nC,again\n", to: file)
        #expect(try await subscriber.receiveUntil { $0.status?.state == .ok && $0.status?.warnings == [] })
        #expect(try await EndToEndTests.Reload.listed(harness).map(\.warnings) == [[]])
        subscribe.send(SIGTERM)
        _ = try await subscribe.exited()
        #expect(try await harness.stopDaemon() == 0)
    }
}
