import ListSyncProtocol
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One open connection to the daemon's Unix socket: protocol lines out, decoded messages in.
///
/// Lines are cut with ListSyncProtocol's ``LineBuffer`` (the same framing rules as the daemon's)
/// and decoded with ``MessageParser``. Reading is pulled: nothing is read from the socket until
/// the subscriber asks for the next message, so a slow consumer slows the socket, not memory.
struct DaemonConnection {
    /// What the daemon sent: a message, or a line that could not be decoded.
    enum Incoming {
        case message(ServerMessage)
        case undecodable(ProtocolError)
    }

    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var lines: LineBuffer
    private let activity: ConnectionActivity

    /// Connects to the socket `configuration` names, runs `body` with the connection, and closes
    /// it when `body` returns or throws. A connection silent beyond the configuration's idle
    /// timeout while `body` waits for a message is closed: ``next()`` then throws
    /// ``ConnectionFailure``.
    ///
    /// - Throws: ``ConnectionFailure`` when the socket cannot be reached, and whatever `body` throws.
    static func withConnection<Result: Sendable>(
        configuration: ClientConfiguration, eventLoopGroup: any EventLoopGroup,
        _ body: (inout DaemonConnection) async throws -> Result
    ) async throws -> Result {
        let channel = try await Self.connect(configuration: configuration, eventLoopGroup: eventLoopGroup)
        return try await channel.executeThenClose { inbound, outbound in
            let activity = ConnectionActivity()
            return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
                if let timeout = configuration.idleTimeout {
                    group.addTask { await activity.closeWhenSilent(channel.channel, after: timeout) }
                }
                defer { group.cancelAll() }
                var connection = DaemonConnection(
                    inbound: inbound.makeAsyncIterator(), outbound: outbound,
                    lines: LineBuffer(limit: configuration.maximumLineLength), activity: activity)
                return try await body(&connection)
            }
        }
    }

    /// How long connecting may take, retries included.
    static let connectTimeout: Duration = .seconds(10)

    /// The pauses between attempts to connect to a socket whose listen queue is full: from 1 ms,
    /// doubling up to 100 ms, up to half of each taken off at random.
    static let busyRetry = Backoff(initialDelay: .milliseconds(1), maximumDelay: .milliseconds(100), jitter: 0.5)

    /// Opens a channel to the socket.
    ///
    /// A daemon busy with a burst of clients may have its listen queue full: `connect` then fails
    /// with `EAGAIN` (a Unix socket has no "in progress"), and this retries after the pauses of
    /// ``busyRetry`` until ``connectTimeout``. Other failures (no socket, connection refused) are
    /// reported at once.
    ///
    /// - Throws: ``ConnectionFailure``.
    private static func connect(
        configuration: ClientConfiguration, eventLoopGroup: any EventLoopGroup
    ) async throws(ConnectionFailure) -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let deadline = ContinuousClock.now + Self.connectTimeout
        var pauses = Self.busyRetry.delays()
        var pause = pauses.next()
        while true {
            do {
                return try await ClientBootstrap(group: eventLoopGroup)
                    .connectTimeout(TimeAmount.nanoseconds(Int64((deadline - ContinuousClock.now) / .nanoseconds(1))))
                    .connect(unixDomainSocketPath: configuration.socketPath) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
            } catch let error as IOError where error.errnoCode == EAGAIN && ContinuousClock.now + pause < deadline {
                guard (try? await Task.sleep(for: pause)) != nil else {
                    throw ConnectionFailure(reason: "cancelled")
                }
                pause = pauses.next()
            } catch {
                throw ConnectionFailure(error)
            }
        }
    }

    /// The next message or undecodable line; `nil` when the daemon closed the connection.
    ///
    /// - Throws: ``ConnectionFailure`` when reading fails, a line exceeds the limit, or the
    ///   connection was closed for silence.
    mutating func next() async throws(ConnectionFailure) -> Incoming? {
        while true {
            let line: [UInt8]?
            do {
                line = try self.lines.nextLine()
            } catch {
                throw ConnectionFailure(reason: error.message)
            }
            if let line {
                do {
                    guard let message = try MessageParser.serverMessage(ofLine: line) else { continue }
                    return .message(message)
                } catch {
                    return .undecodable(error)
                }
            }
            self.activity.beginWaiting()
            defer { self.activity.endWaiting() }
            let buffer: ByteBuffer?
            do {
                buffer = try await self.inbound.next()
            } catch {
                throw self.activity.timedOut ? .silent : ConnectionFailure(error)
            }
            guard let buffer else {
                if self.activity.timedOut { throw .silent }
                return nil
            }
            self.lines.append(buffer.readableBytesView)
        }
    }

    /// Sends `message`.
    ///
    /// - Throws: ``ConnectionFailure`` when the connection is closed.
    func send(_ message: ClientMessage) async throws(ConnectionFailure) {
        do {
            try await self.outbound.write(ByteBuffer(bytes: message.encoded()))
        } catch {
            throw ConnectionFailure(error)
        }
    }
}
