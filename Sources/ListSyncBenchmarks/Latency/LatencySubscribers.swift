import Glibc
import ListSyncProtocol

/// Subscribers on plain Unix sockets, read by one `poll` loop, that note the instant each
/// changeset line arrives — the daemon's latency as any client sees it, before the client does
/// any work of its own.
final class LatencySubscribers {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Connection {
        var descriptor: Int32
        var lines = LineBuffer(limit: 1 << 30)
        /// When each changeset (by `seq`) arrived.
        var arrivals: [UInt64: ContinuousClock.Instant] = [:]
        /// Whether the subscription's snapshot has fully arrived.
        var hasSnapshot = false
    }

    private var connections: [Connection] = []
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    /// `count` subscribers of `watch`, each with its snapshot received.
    init(count: Int, socketPath: String, watch: String, timeout: Duration = .seconds(600)) throws {
        for _ in 0..<count {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { throw Failure(description: "connect \(socketPath): \(String(cString: strerror(errno)))") }
            self.connections.append(Connection(descriptor: descriptor))
            try self.send(ClientMessage.hello(ClientHello(client: "latency benchmark")).encoded(), to: descriptor)
            try self.send(ClientMessage.subscribe(id: RequestID(1), watch: watch, since: nil).encoded(), to: descriptor)
        }
        try self.readUntil(timeout: timeout, "every snapshot") { $0.hasSnapshot }
    }

    deinit {
        for connection in self.connections { close(connection.descriptor) }
    }

    /// When each subscriber received changeset `seq`, in subscriber order.
    func arrivals(ofChangeset seq: UInt64, timeout: Duration = .seconds(60)) throws -> [ContinuousClock.Instant] {
        try self.readUntil(timeout: timeout, "changeset \(seq)") { $0.arrivals[seq] != nil }
        return self.connections.indices.compactMap { self.connections[$0].arrivals.removeValue(forKey: seq) }
    }

    private func send(_ bytes: [UInt8], to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Reads from every connection until `done` holds for all of them.
    private func readUntil(timeout: Duration, _ what: String, _ done: (Connection) -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while !self.connections.allSatisfy(done) {
            guard ContinuousClock.now < deadline else { throw Failure(description: "no \(what) within \(timeout)") }
            var polls = self.connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 1000) >= 0 || errno == EINTR else { throw Failure(description: "poll: errno \(errno)") }
            for index in polls.indices where polls[index].revents != 0 {
                let count = self.buffer.withUnsafeMutableBytes { recv(polls[index].fd, $0.baseAddress, $0.count, 0) }
                let now = ContinuousClock.now
                guard count > 0 else { throw Failure(description: "the daemon closed a subscriber's connection") }
                self.connections[index].lines.append(self.buffer[..<count])
                try self.handleLines(of: index, arrivedAt: now)
            }
        }
    }

    private static let changesetPrefix = Array(#"{"type":"changeset""#.utf8)
    private static let snapshotPrefix = Array(#"{"type":"snapshot""#.utf8)

    /// Notes changesets and the end of the snapshot; skips the rest without decoding it.
    private func handleLines(of index: Int, arrivedAt now: ContinuousClock.Instant) throws {
        while let line = try self.connections[index].lines.nextLine() {
            if line.starts(with: Self.changesetPrefix) {
                guard case .changeset(let changeset) = try MessageParser.serverMessage(ofLine: line) else { continue }
                self.connections[index].arrivals[changeset.cursor.seq] = now
            } else if line.starts(with: Self.snapshotPrefix), String(decoding: line.suffix(120), as: UTF8.self).contains("\"last\":true") {
                // The last chunk ends with `"last":true,"digest":"…"}`.
                self.connections[index].hasSnapshot = true
            }
        }
    }
}
