import CEpoll
import Glibc
import ListSyncProtocol
import UnixSockets

/// Subscribers on plain Unix sockets, read by one `epoll` loop, that note the instant each
/// changeset line arrives — the daemon's latency as any client sees it, before the client does
/// any work of its own.
///
/// Lines are not kept: only their head, which names a changeset's cursor, and their tail, which
/// says whether a snapshot chunk is the last. So thousands of subscribers can each receive a
/// snapshot of a large list without the benchmark copying it.
final class LatencySubscribers {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct Connection {
        var descriptor: Int32
        /// The first bytes of the line being received, up to ``headLength``.
        var head: [UInt8] = []
        /// The last bytes of the line being received, up to ``tailLength``.
        var tail: [UInt8] = []
        /// When each changeset (by `seq`) arrived.
        var arrivals: [UInt64: ContinuousClock.Instant] = [:]
        /// When the subscription's snapshot had fully arrived.
        var snapshotArrival: ContinuousClock.Instant?
    }

    private static let headLength = 160
    private static let tailLength = 96
    private var connections: [Connection] = []
    private let epoll: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    /// `count` subscribers of `watch`, each with its snapshot received.
    init(count: Int, socketPath: String, watch: String, timeout: Duration = .seconds(1200)) throws {
        self.epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard self.epoll >= 0 else { throw Failure(description: "epoll_create1: errno \(errno)") }
        for index in 0..<count {
            let descriptor = try Self.connect(to: socketPath)
            self.connections.append(Connection(descriptor: descriptor))
            try self.send(ClientMessage.hello(ClientHello(client: "latency benchmark")).encoded(), to: descriptor)
            try self.send(ClientMessage.subscribe(id: RequestID(1), watch: watch, since: nil).encoded(), to: descriptor)
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(index)
            guard epoll_ctl(self.epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
                throw Failure(description: "epoll_ctl: errno \(errno)")
            }
        }
        try self.readUntil(timeout: timeout, "every snapshot") { $0.snapshotArrival != nil }
    }

    deinit {
        for connection in self.connections { close(connection.descriptor) }
        close(self.epoll)
    }

    /// When the last subscriber had its whole snapshot.
    var lastSnapshotArrival: ContinuousClock.Instant? {
        self.connections.compactMap(\.snapshotArrival).max()
    }

    /// When each subscriber received changeset `seq`, in subscriber order.
    func arrivals(ofChangeset seq: UInt64, timeout: Duration = .seconds(120)) throws -> [ContinuousClock.Instant] {
        try self.readUntil(timeout: timeout, "changeset \(seq)") { $0.arrivals[seq] != nil }
        return self.connections.indices.compactMap { self.connections[$0].arrivals.removeValue(forKey: seq) }
    }

    /// A blocking connection to `path`; a full listen queue (`EAGAIN`) is retried.
    private static func connect(to path: String) throws -> Int32 {
        while true {
            do {
                return try UnixStreamSocket.connect(to: path)
            } catch {
                guard error.code == EAGAIN else { throw error }
                usleep(1000)
            }
        }
    }

    private func send(_ bytes: [UInt8], to descriptor: Int32) throws {
        try UnixStreamSocket.sendAll(bytes, to: descriptor)
    }

    /// Reads from every ready connection until `done` holds for all of them.
    private func readUntil(timeout: Duration, _ what: String, _ done: (Connection) -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        var pending = self.connections.indices.filter { !done(self.connections[$0]) }.count
        var events = [epoll_event](repeating: epoll_event(), count: 1024)
        while pending > 0 {
            guard ContinuousClock.now < deadline else { throw Failure(description: "no \(what) within \(timeout)") }
            let ready = epoll_wait(self.epoll, &events, Int32(events.count), 1000)
            guard ready >= 0 || errno == EINTR else { throw Failure(description: "epoll_wait: errno \(errno)") }
            for event in events.prefix(Int(max(ready, 0))) {
                let index = Int(event.data.u64)
                let wasDone = done(self.connections[index])
                let count = self.buffer.withUnsafeMutableBytes { recv(self.connections[index].descriptor, $0.baseAddress, $0.count, 0) }
                let now = ContinuousClock.now
                guard count > 0 else { throw Failure(description: "the daemon closed a subscriber's connection") }
                self.scan(count, of: index, arrivedAt: now)
                if !wasDone, done(self.connections[index]) { pending -= 1 }
            }
        }
    }

    private static let changesetPrefix = Array(#"{"type":"changeset""#.utf8)
    private static let snapshotPrefix = Array(#"{"type":"snapshot""#.utf8)
    private static let cursorMember = Array(#""cursor":""#.utf8)
    private static let lastMember = Array(#""last":true"#.utf8)
    /// What ends every part of a changeset but the last.
    private static let notLastMember = Array(#""last":false}"#.utf8)

    /// Cuts the `count` bytes received into lines, keeping only each line's head and tail.
    private func scan(_ count: Int, of index: Int, arrivedAt now: ContinuousClock.Instant) {
        var start = 0
        while start < count {
            let newline = self.buffer[start..<count].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? count
            let piece = self.buffer[start..<end]
            if self.connections[index].head.count < Self.headLength {
                self.connections[index].head += piece.prefix(Self.headLength - self.connections[index].head.count)
            }
            self.connections[index].tail = Array((self.connections[index].tail + piece.suffix(Self.tailLength)).suffix(Self.tailLength))
            guard newline != nil else { break }
            self.endLine(of: index, arrivedAt: now)
            start = end + 1
        }
    }

    /// Notes a changeset's arrival, or the end of the snapshot, from the line's head and tail.
    private func endLine(of index: Int, arrivedAt now: ContinuousClock.Instant) {
        let head = self.connections[index].head
        if head.starts(with: Self.changesetPrefix), let seq = Self.cursorSeq(in: head) {
            // A changeset in parts (protocol version 2) arrives with its last part.
            if !Self.contains(self.connections[index].tail, Self.notLastMember) {
                self.connections[index].arrivals[seq] = now
            }
        } else if head.starts(with: Self.snapshotPrefix), Self.contains(self.connections[index].tail, Self.lastMember) {
            // The last chunk ends with `"last":true,"digest":"…"}`.
            self.connections[index].snapshotArrival = now
        }
        self.connections[index].head.removeAll(keepingCapacity: true)
        self.connections[index].tail.removeAll(keepingCapacity: true)
    }

    /// The `seq` of the `"cursor":"<epoch>:<seq>"` member in `head`.
    private static func cursorSeq(in head: [UInt8]) -> UInt64? {
        guard let member = head.indices.first(where: { head[$0...].starts(with: Self.cursorMember) }) else { return nil }
        let value = head[(member + Self.cursorMember.count)...].prefix { $0 != UInt8(ascii: "\"") }
        guard let colon = value.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return UInt64(String(decoding: value[(colon + 1)...], as: UTF8.self))
    }

    private static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        bytes.indices.contains { bytes[$0...].starts(with: pattern) }
    }
}
