import Foundation
import NATSTransport

/// A 3-node `nats-server` cluster on loopback for the NATS benchmark, JetStream file storage in
/// a directory of its own: the cluster of issue 21's goals, on one machine.
final class NATSBenchmarkCluster {
    private var processes: [Process] = []
    /// The client URLs, `nats://127.0.0.1:PORT`.
    let urls: [String]

    /// Starts the three servers in `directory` (the `nats-server` on the `PATH`) and waits until
    /// a replicated stream can be made (the cluster has a JetStream leader).
    init(directory: URL) async throws {
        let base = Int.random(in: 20_000...50_000)
        let clientPorts = (0..<3).map { base + $0 }
        let routePorts = (0..<3).map { base + 100 + $0 }
        self.urls = clientPorts.map { "nats://127.0.0.1:\($0)" }
        for node in 0..<3 {
            let store = directory.appendingPathComponent("n\(node)")
            try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
            let routes = routePorts.map { "nats-route://127.0.0.1:\($0)" }.joined(separator: ", ")
            let configuration = directory.appendingPathComponent("n\(node).conf")
            try """
                server_name: n\(node)
                listen: 127.0.0.1:\(clientPorts[node])
                jetstream { store_dir: "\(store.path)" }
                cluster { name: bench, listen: 127.0.0.1:\(routePorts[node]), routes: [\(routes)] }

                """.write(to: configuration, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["nats-server", "-c", configuration.path]
            let log = directory.appendingPathComponent("n\(node).log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            self.processes.append(process)
        }
        let deadline = ContinuousClock.now + .seconds(60)
        let urls = self.urls
        while ContinuousClock.now < deadline {
            let ready = await Task.detached {
                (try? NATSConnection(.init(servers: urls, name: "benchmark probe")).ensureStream(
                    NATSStreamSettings(name: "PROBE", subjects: ["probe"], replicas: 3))) != nil
            }.value
            if ready { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw LatencySubscribers.Failure(description: "the NATS cluster did not elect a JetStream leader; see \(directory.path)/n*.log")
    }

    /// Stops the servers.
    func stop() {
        for process in self.processes where process.isRunning { process.terminate() }
        for process in self.processes { process.waitUntilExit() }
        self.processes = []
    }

    deinit { self.stop() }
}
