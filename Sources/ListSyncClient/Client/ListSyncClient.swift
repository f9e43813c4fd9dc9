import ListSyncProtocol
import NIOCore
import NIOPosix

/// A client of `listsyncd`: asks for its watches and keeps mirrors of them over its Unix socket.
///
/// ```swift
/// let client = ListSyncClient(configuration: ClientConfiguration(socketPath: path))
/// try await client.withMirror(of: "products") { updates in
///     for try await update in updates where update.isCurrent {
///         let bytes = ListWriter(format: .json).write(update.mirror.document)
///         …
///     }
/// }
/// ```
///
/// A mirror subscription reconnects by itself with the configuration's ``ReconnectPolicy`` and
/// resumes from the mirror's cursor: the daemon sends exactly the changesets it missed, or a fresh
/// snapshot when they are gone (another daemon run, too old).
public struct ListSyncClient: Sendable {
    /// How to reach the daemon.
    public let configuration: ClientConfiguration
    private let eventLoopGroup: any EventLoopGroup

    /// A client with `configuration`, whose connections run on `eventLoopGroup`.
    public init(configuration: ClientConfiguration, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
    }

    /// The daemon's watches, with their cursor, row count and state: one short connection.
    ///
    /// - Throws: ``ClientError/unreachable(socketPath:reason:)`` when no daemon answers,
    ///   ``ClientError/refused(_:)`` when it refuses.
    public func watches() async throws(ClientError) -> [WatchSummary] {
        try await self.ask({ .list(id: $0) }) { result in
            if case .list(let watches) = result { return watches }
            return nil
        }
    }

    /// The daemon's metrics in the Prometheus text format, as its metrics endpoint serves them:
    /// one short connection (the `metrics` request, an addition to protocol version 1).
    ///
    /// - Throws: ``ClientError/unreachable(socketPath:reason:)`` when no daemon answers,
    ///   ``ClientError/refused(_:)`` when it refuses (a daemon older than the request answers
    ///   `unknown_type`).
    public func metrics() async throws(ClientError) -> String {
        try await self.ask({ .metrics(id: $0) }) { result in
            if case .metrics(let exposition) = result { return exposition }
            return nil
        }
    }

    /// Says hello, sends the request `request` makes and returns what `answer` takes from its reply.
    private func ask<Answer: Sendable>(
        _ request: @escaping @Sendable (RequestID) -> ClientMessage, _ answer: @escaping @Sendable (ReplyResult) -> Answer?
    ) async throws(ClientError) -> Answer {
        let id = RequestID(1)
        do {
            return try await DaemonConnection.withConnection(configuration: self.configuration, eventLoopGroup: self.eventLoopGroup) {
                connection throws(ClientError) in
                do throws(ConnectionFailure) {
                    try await connection.send(.hello(ClientHello(client: self.configuration.clientName)))
                    try await connection.send(request(id))
                } catch {
                    // The daemon may have answered and closed before the request left (a
                    // refusal): its answer explains the failure better.
                    _ = try await connection.nextAnswer()
                    throw .connectionLost(reason: error.reason)
                }
                while true {
                    if case .reply(let reply) = try await connection.nextAnswer(), reply.id == id, let answered = answer(reply.result) {
                        return answered
                    }
                }
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw .unreachable(socketPath: self.configuration.socketPath, reason: ConnectionFailure(error).reason)
        }
    }

    /// Subscribes to `watch` and runs `body` with the subscription's updates; the subscription
    /// ends when `body` returns.
    ///
    /// - Parameters:
    ///   - watch: The watch's name.
    ///   - since: A cursor to resume from without a list: the updates carry the changesets after
    ///     it (digests unchecked until a snapshot gives the mirror its list). `nil`: start with a
    ///     snapshot.
    ///   - body: Iterates the updates; its result is returned.
    /// - Throws: What `body` throws; the updates themselves throw the ``ClientError`` that ends
    ///   the subscription.
    public func withMirror<Result>(
        of watch: String, since: Cursor? = nil, _ body: (MirrorUpdates) async throws -> Result
    ) async throws -> Result {
        let mirror = since.map { MirroredList(watch: watch, following: $0) } ?? MirroredList(watch: watch)
        return try await self.withMirror(resuming: mirror, body)
    }

    /// Subscribes to `mirror`'s watch, resuming from its cursor (when it has one), and runs `body`
    /// with the subscription's updates; the subscription ends when `body` returns.
    ///
    /// Pass the mirror of an update kept from an earlier subscription to pick up where it left
    /// off: the daemon sends only what it missed, or a snapshot.
    ///
    /// - Throws: What `body` throws; the updates themselves throw the ``ClientError`` that ends
    ///   the subscription.
    public func withMirror<Result>(
        resuming mirror: MirroredList, _ body: (MirrorUpdates) async throws -> Result
    ) async throws -> Result {
        let handoff = UpdateHandoff<MirrorUpdate>()
        let machine = SubscriberStateMachine(mirror: mirror, configuration: self.configuration)
        let eventLoopGroup = self.eventLoopGroup
        return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
            group.addTask {
                var subscriber = WatchSubscriber(machine: machine, eventLoopGroup: eventLoopGroup)
                await subscriber.run(delivering: handoff)
            }
            defer {
                handoff.consumerFinished()
                group.cancelAll()
            }
            return try await body(MirrorUpdates(handoff: handoff))
        }
    }
}

extension DaemonConnection {
    /// The next message of a request/reply exchange; an `error` from the daemon is thrown.
    fileprivate mutating func nextAnswer() async throws(ClientError) -> ServerMessage {
        let incoming: Incoming?
        do throws(ConnectionFailure) {
            incoming = try await self.next()
        } catch {
            throw .connectionLost(reason: error.reason)
        }
        switch incoming {
        case .message(.error(let error)): throw .refused(error)
        case .message(let message): return message
        case .undecodable(let error): throw .protocolViolation("\(error)")
        case nil: throw .connectionLost(reason: "the daemon closed the connection")
        }
    }
}
