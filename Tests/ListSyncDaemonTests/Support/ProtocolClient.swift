import Glibc
import ListSyncProtocol
import UnixSockets

/// A protocol client over a plain `AF_UNIX` socket, as any program could write one: lines of
/// JSON out, lines of JSON in, every wait bounded.
final class ProtocolClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let descriptor: Int32
    private var lines = LineBuffer(limit: 256 << 20)
    private(set) var isClosedByServer = false

    /// Connects to `path`, retrying until `timeout` while nobody listens yet.
    init(socketPath path: String, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                self.descriptor = try UnixStreamSocket.connect(to: path)
                return
            } catch {
                // Nobody listens yet: the daemon is still starting.
                guard (error.code == ENOENT || error.code == ECONNREFUSED) && ContinuousClock.now < deadline else { throw error }
                usleep(10_000)
            }
        }
    }

    /// Connects to `path` with one non-blocking `connect`, as a client in a burst does: fails at
    /// once — `EAGAIN` when the server's listen queue is full — instead of waiting or retrying.
    init(connectingOnceTo path: String) throws {
        self.descriptor = try UnixStreamSocket.connect(to: path, waiting: false)
    }

    deinit {
        close(self.descriptor)
    }

    func send(_ message: ClientMessage) throws {
        try self.sendRaw(message.encoded())
    }

    func sendRaw(_ bytes: [UInt8]) throws {
        try UnixStreamSocket.sendAll(bytes, to: self.descriptor)
    }

    /// The next line from the server; `nil` once the server closed the connection.
    func nextLine(timeout: Duration = .seconds(10)) throws -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = try self.lines.nextLine() { return line }
            if self.isClosedByServer { return nil }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw Failure(description: "no message within \(timeout)") }
            var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining / .milliseconds(1), 60_000).rounded(.up))
            guard poll(&poller, 1, milliseconds) >= 0 || errno == EINTR else { throw Failure(description: "poll: errno \(errno)") }
            guard poller.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256 << 10)
            let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                self.lines.append(buffer[..<count])
            } else if count == 0 || errno == ECONNRESET {
                self.isClosedByServer = true
            } else if errno != EINTR && errno != EAGAIN {
                throw Failure(description: "recv: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The next message; fails when the server closes the connection.
    func next(timeout: Duration = .seconds(10)) throws -> ServerMessage {
        guard let line = try self.nextLine(timeout: timeout) else { throw Failure(description: "the server closed the connection") }
        guard let message = try MessageParser.serverMessage(ofLine: line) else { return try self.next(timeout: timeout) }
        return message
    }

    /// Skips messages until one `matching` comes; heartbeats are skipped too.
    func next<T>(timeout: Duration = .seconds(10), _ matching: (ServerMessage) throws -> T?) throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            let message = try self.next(timeout: max(.milliseconds(1), deadline - ContinuousClock.now))
            if let match = try matching(message) { return match }
        }
    }

    /// Says hello and returns the server's hello.
    @discardableResult
    func handshake() throws -> ServerHello {
        try self.send(.hello(ClientHello(client: "test client")))
        guard case .hello(let hello) = try self.next() else { throw Failure(description: "no server hello") }
        return hello
    }

    private var nextID = 0

    /// Sends `request` (given a fresh id) and returns its reply, or throws its error.
    func request(_ make: (RequestID) -> ClientMessage) throws -> ReplyResult {
        self.nextID += 1
        let id = RequestID(self.nextID)
        try self.send(make(id))
        return try self.next { message -> Result<ReplyResult, ProtocolError>? in
            switch message {
            case .reply(let reply) where reply.id == id: return .success(reply.result)
            case .error(let error) where error.id == id: return .failure(ProtocolError(error.code, error.message, requestID: id))
            default: return nil
            }
        }.get()
    }

    /// Waits for the server to close the connection, skipping messages; returns them.
    func messagesUntilClosed(timeout: Duration = .seconds(10)) throws -> [ServerMessage] {
        var messages: [ServerMessage] = []
        while let line = try self.nextLine(timeout: timeout) {
            if let message = try MessageParser.serverMessage(ofLine: line) { messages.append(message) }
        }
        return messages
    }
}
