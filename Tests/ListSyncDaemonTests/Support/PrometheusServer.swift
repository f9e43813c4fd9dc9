import Glibc
import ListSyncTestSupport

/// A real Prometheus server (Debian's `prometheus`) for end-to-end tests: loopback only, its
/// data in the test's scratch directory, scraping one target every second. Stopped when released.
final class PrometheusServer {
    let port: Int
    private let process: DaemonProcess

    /// Starts Prometheus in `directory`, scraping `http://TARGET/metrics` as job `listsync`.
    init(scraping target: String, in directory: String) throws {
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
        try eventuallyBlocking("Prometheus is ready", timeout: .seconds(60)) {
            (try? HTTPFetch.request("http://127.0.0.1:\(self.port)/-/ready").status) == 200
        }
    }

    deinit {
        self.process.send(SIGTERM)
        _ = try? self.process.waitForExit(timeout: .seconds(20))
    }

    /// The value of the instant query `query` (PromQL) now, for a query that selects one series;
    /// `nil` when it selects none. Throws when it selects several or Prometheus refuses it.
    func value(of query: String) throws -> Double? {
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
        let output = try Python.output(
            of: script, input: ["url": "http://127.0.0.1:\(self.port)/api/v1/query", "query": query], passing: .standardInput)
        let text = output.split(separator: "\n").first.map(String.init) ?? ""
        return text == "none" ? nil : Double(text)
    }

    /// What Prometheus logged.
    var log: String { self.process.log }
}
