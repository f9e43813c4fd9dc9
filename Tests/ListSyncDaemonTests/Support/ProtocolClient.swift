import Glibc
import ListSyncProtocol
import ListSyncTestSupport
import DurableFiles
import UnixSockets

/// A protocol client over a plain `AF_UNIX` socket, as any program could write one: lines of
/// JSON out, lines of JSON in, every wait bounded. Its waits hold no thread: a read takes what
/// has arrived (`MSG_DONTWAIT`) and otherwise awaits the socket's readiness (``Readiness``).
final class ProtocolClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let descriptor: Int32
    private var lines = LineBuffer(limit: 256 << 20)
    private(set) var isClosedByServer = false

    /// Connects to `path` with one non-blocking `connect`, as a client in a burst does: fails at
    /// once — `EAGAIN` when the server's listen queue is full — instead of waiting or retrying.
    init(connectingOnceTo path: String) throws {
        self.descriptor = try UnixStreamSocket.connect(to: path, waiting: false)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to `path`, retrying every 10 ms until `timeout` while nobody listens yet.
    static func connect(to path: String, timeout: Duration = .seconds(10)) async throws -> ProtocolClient {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return ProtocolClient(descriptor: try UnixStreamSocket.connect(to: path))
            } catch {
                guard Self.isNotListeningYet(error) && ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Nobody listens yet: the daemon is still starting.
    private static func isNotListeningYet(_ error: SystemCallError) -> Bool {
        error.code == ENOENT || error.code == ECONNREFUSED
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

    // MARK: Receiving

    /// The next line from the server; `nil` once the server closed the connection.
    func receiveLine(timeout: Duration = .seconds(10)) async throws -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch try self.lineOrWait(until: deadline, timeout: timeout) {
            case .line(let line): return line
            case .wait(let remaining): _ = await Readiness.readable(self.descriptor, timeout: remaining)
            }
        }
    }

    /// Where a wait for the next line stands: a line (`nil` at the end of the stream), or
    /// nothing yet and this long left to wait for the socket.
    private enum LineWait {
        case line([UInt8]?)
        case wait(Duration)
    }

    /// Takes the next line from what has arrived, reading what the socket holds; fails once
    /// `deadline` has passed without one.
    private func lineOrWait(until deadline: ContinuousClock.Instant, timeout: Duration) throws -> LineWait {
        while true {
            if let line = try self.lines.nextLine() { return .line(line) }
            if self.isClosedByServer { return .line(nil) }
            if try self.readAvailable() { continue }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw Failure(description: "no message within \(timeout)") }
            return .wait(remaining)
        }
    }

    /// The next message; fails when the server closes the connection.
    func receive(timeout: Duration = .seconds(10)) async throws -> ServerMessage {
        while true {
            guard let line = try await self.receiveLine(timeout: timeout) else { throw Failure(description: "the server closed the connection") }
            if let message = try MessageParser.serverMessage(ofLine: line) { return message }
        }
    }

    /// Skips messages until one `matching` comes; heartbeats are skipped too.
    func receive<T>(timeout: Duration = .seconds(10), _ matching: (ServerMessage) throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            let message = try await self.receive(timeout: max(.milliseconds(1), deadline - ContinuousClock.now))
            if let match = try matching(message) { return match }
        }
    }

    /// Says hello offering `protocols` (version 1 alone unless a test asks for more: the raw
    /// client of these tests checks version 1 digests) and returns the server's hello.
    @discardableResult
    func hello(protocols: [Int] = [1]) async throws -> ServerHello {
        try self.send(.hello(ClientHello(protocols: protocols, client: "test client")))
        guard case .hello(let hello) = try await self.receive() else { throw Failure(description: "no server hello") }
        return hello
    }

    private var nextID = 0

    /// Sends `request` (given a fresh id) and returns its reply, or throws its error.
    func call(_ make: (RequestID) -> ClientMessage) async throws -> ReplyResult {
        let id = try self.sendRequest(make)
        return try await self.receive { Self.reply(to: id, in: $0) }.get()
    }

    /// Waits for the server to close the connection, skipping messages; returns them.
    func receiveUntilClosed(timeout: Duration = .seconds(10)) async throws -> [ServerMessage] {
        var messages: [ServerMessage] = []
        while let line = try await self.receiveLine(timeout: timeout) {
            if let message = try MessageParser.serverMessage(ofLine: line) { messages.append(message) }
        }
        return messages
    }

    /// Takes what the socket holds now without waiting: `true` when that was something (bytes,
    /// or the end of the stream), `false` when nothing has arrived.
    private func readAvailable() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count > 0 {
            self.lines.append(buffer[..<count])
            return true
        }
        if count == 0 || errno == ECONNRESET {
            self.isClosedByServer = true
            return true
        }
        guard errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK else {
            throw Failure(description: "recv: \(String(cString: strerror(errno)))")
        }
        return errno == EINTR
    }

    /// Sends the request `make` builds with a fresh id; returns the id.
    private func sendRequest(_ make: (RequestID) -> ClientMessage) throws -> RequestID {
        self.nextID += 1
        let id = RequestID(self.nextID)
        try self.send(make(id))
        return id
    }

    /// `message` as the outcome of request `id`; `nil` when it is about something else.
    private static func reply(to id: RequestID, in message: ServerMessage) -> Result<ReplyResult, ProtocolError>? {
        switch message {
        case .reply(let reply) where reply.id == id: return .success(reply.result)
        case .error(let error) where error.id == id: return .failure(ProtocolError(error.code, error.message, requestID: id))
        default: return nil
        }
    }
}
