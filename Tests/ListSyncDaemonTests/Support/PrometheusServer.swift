import Glibc
import ListSyncTestSupport

/// A real Prometheus server (Debian's `prometheus`) for end-to-end tests: loopback only, its
/// data in the test's scratch directory, scraping one target every second. Stopped by
/// ``stop()``, or with SIGTERM when released. No wait holds a thread of the cooperative pool.
final class PrometheusServer {
    let port: Int
    private let process: DaemonProcess

    /// Starts Prometheus in `directory`, scraping `http://TARGET/metrics` as job `listsync`, and
    /// waits until it is ready.
    static func start(scraping target: String, in directory: String) async throws -> PrometheusServer {
        let server = try PrometheusServer(scraping: target, in: directory)
        try await eventually("Prometheus is ready", timeout: .seconds(60)) {
            (try? await HTTPFetch.request("http://127.0.0.1:\(server.port)/-/ready").status) == 200
        }
        return server
    }

    private init(scraping target: String, in directory: String) throws {
        self.port = try HTTPFetch.freeLoopbackPort()
        let config = directory + "/prometheus.yml"
        try FileOperations.write(
            """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: listsync
                static_configs:
                  - targets: ["\(target)"]

            """, to: config)
        self.process = try DaemonProcess(
            executable: "/usr/bin/prometheus",
            arguments: [
                "--config.file=\(config)", "--storage.tsdb.path=\(directory)/prometheus-data", "--web.listen-address=127.0.0.1:\(self.port)",
                "--log.level=warn",
            ],
            logPath: directory + "/prometheus.log")
    }

    /// Stops Prometheus with SIGTERM and waits for it to exit.
    func stop() async throws {
        self.process.send(SIGTERM)
        _ = try await self.process.exited(timeout: .seconds(20))
    }

    deinit {
        // Not stopped by the test (it failed first): stopped here, reaped on a thread of its own.
        self.process.send(SIGTERM)
        self.process.process.detach()
    }

    /// The value of the instant query `query` (PromQL) now, for a query that selects one series;
    /// `nil` when it selects none. Throws when it selects several or Prometheus refuses it.
    func value(of query: String) async throws -> Double? {
        let script = """
            import json, sys, urllib.parse, urllib.request
            request = json.load(sys.stdin)
            url = request["url"] + "?" + urllib.parse.urlencode({"query": request["query"]})
            with urllib.request.urlopen(url, timeout=20) as answer:
                document = json.load(answer)
            assert document["status"] == "success", document
            result = document["data"]["result"]
            assert len(result) <= 1, result
            print(result[0]["value"][1] if result else "none")
            """
        let output = try await Python.output(
            of: script, input: ["url": "http://127.0.0.1:\(self.port)/api/v1/query", "query": query], passing: .standardInput)
        let text = output.split(separator: "\n").first.map(String.init) ?? ""
        return text == "none" ? nil : Double(text)
    }

    /// What Prometheus logged.
    var log: String { self.process.log }
}
