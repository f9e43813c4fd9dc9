import ListSyncTestSupport
import Testing

/// `examples/prometheus/`: the scrape configuration and the alert rules pass Prometheus' own
/// checks, and each alert fires on series shaped as the daemon exposes them (promtool's rule
/// unit tests, alerts-test.yml).
@Suite struct PrometheusExampleTests {
    static func examples(file: String = #filePath) -> String {
        file.split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/") + "/examples/prometheus"
    }

    @Test(arguments: [
        ["check", "config", "prometheus.yml"], ["check", "rules", "alerts.yml"], ["test", "rules", "alerts-test.yml"],
    ])
    func promtoolAccepts(_ arguments: [String]) async throws {
        let scratch = try ScratchDirectory()
        let check = try DaemonProcess(
            executable: "/bin/sh", arguments: ["-c", "cd \"$0\" && exec promtool \"$@\"", Self.examples()] + arguments,
            logPath: scratch.path + "/promtool.log")
        #expect(try await check.exited(timeout: .seconds(60)) == 0, "promtool \(arguments.joined(separator: " ")): \(check.log)")
        #expect(check.log.contains("SUCCESS"), "\(check.log)")
    }
}
