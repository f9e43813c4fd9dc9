import Glibc

/// Real `nats-server` processes with JetStream for the tests: one server, or a cluster of them,
/// on free loopback ports, each storing its streams in a scratch directory. Killed and removed
/// when the value goes away.
package final class NATSServers {
    /// Where `nats-server` is installed (scripts/bootstrap installs it); `nil` when it is not.
    package static let executable: String? = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
        .first { access($0, X_OK) == 0 }

    /// Whether tests that need a NATS server run: where it is installed, and always under CI
    /// (`CI` set), where scripts/bootstrap installs it — a missing server then fails the tests
    /// instead of skipping them unseen.
    package static var isInstalled: Bool { Self.executable != nil || getenv("CI") != nil }

    /// One server.
    package struct Node {
        package let name: String
        package let port: Int
        package let clusterPort: Int
        package var url: String { "nats://127.0.0.1:\(self.port)" }
    }

    private let scratch: ScratchDirectory
    package private(set) var nodes: [Node]
    private var processes: [ChildProcess?]
    private var starts = 0
    /// The configuration file every server reads, when there are settings beyond the command line.
    private let configuration: String?

    /// Every server's URL, comma-separated (`mirror --from`).
    package var urls: String { self.nodes.map(\.url).joined(separator: ",") }

    /// Starts `count` servers (a cluster when more than one) and waits until each accepts
    /// connections; with `maximumPayload`, the servers accept messages of at most that many bytes
    /// (`max_payload`, 1 MiB by default).
    package init(count: Int = 1, maximumPayload: Int? = nil) async throws {
        guard Self.executable != nil else { throw TestFailure("nats-server is not installed: run scripts/bootstrap") }
        self.scratch = try ScratchDirectory(prefix: "listsync-nats")
        if let maximumPayload {
            try self.scratch.write("max_payload: \(maximumPayload)\n", to: "nats.conf")
            self.configuration = self.scratch.path("nats.conf")
        } else {
            self.configuration = nil
        }
        // The ports are free when picked but not reserved: another test may take one before the
        // server binds it. A server that could not bind ends at once, so pick new ports and try again.
        let tag = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        self.nodes = []
        self.processes = Array(repeating: nil, count: count)
        for attempt in 1...5 {
            self.nodes = try (0..<count).map { index in
                Node(name: "n\(index + 1)-\(tag)", port: try LoopbackPort.free(), clusterPort: try LoopbackPort.free())
            }
            do {
                for index in 0..<count { try await self.start(index) }
                return
            } catch is PortTaken where attempt < 5 {
                for index in 0..<count { try await self.kill(index) }
            }
        }
    }

    /// A server ended as it started, most likely because another process took its port.
    private struct PortTaken: Error, CustomStringConvertible {
        let log: String
        var description: String { "nats-server ended as it started:\n\(self.log)" }
    }

    /// Starts server `index` (again), with the same ports and storage.
    package func start(_ index: Int) async throws {
        let node = self.nodes[index]
        var arguments = self.configuration.map { ["-c", $0] } ?? []
        arguments += ["-a", "127.0.0.1", "-p", "\(node.port)", "-js", "-sd", self.scratch.path("store-\(node.name)"), "-n", node.name]
        if self.nodes.count > 1 {
            let routes = self.nodes.filter { $0.name != node.name }.map { "nats://127.0.0.1:\($0.clusterPort)" }.joined(separator: ",")
            arguments += ["--cluster_name", "listsync", "--cluster", "nats://127.0.0.1:\(node.clusterPort)", "--routes", routes]
        }
        self.starts += 1
        let log = self.scratch.path("\(node.name)-\(self.starts).log")
        self.processes[index] = try ChildProcess(Self.executable ?? "nats-server", arguments, outputPath: log, errorPath: log)
        let process = self.processes[index]
        try await eventually("nats-server \(node.name) accepts connections on port \(node.port)") {
            if let process, process.exitStatus != nil { throw PortTaken(log: process.errorOutput) }
            // The port answers for this server, not for one another test started on it.
            return try await Self.answers(node.port, as: node.name)
        }
    }

    /// Kills server `index` with SIGKILL and waits for it to end.
    package func kill(_ index: Int) async throws {
        self.processes[index]?.send(SIGKILL)
        _ = try await self.processes[index]?.waitForExit()
        self.processes[index] = nil
    }

    /// Every server's log so far, for failure messages.
    package var logs: String {
        self.processes.compactMap { $0.map { readFile($0.errorPath) } }.joined(separator: "\n")
    }

    /// Whether the server listening on `port` of the loopback address greets a client with an
    /// `INFO` line naming it `name`.
    private static func answers(_ port: Int, as name: String) async throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 || errno == EINPROGRESS else { return false }
        var greeting: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<100 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                greeting += buffer[..<count]
                if greeting.contains(UInt8(ascii: "\n")) { break }
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                return false
            } else {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        return String(decoding: greeting, as: UTF8.self).contains("\"server_name\":\"\(name)\"")
    }
}
