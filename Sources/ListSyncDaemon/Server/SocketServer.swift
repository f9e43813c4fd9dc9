#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPeerCredentials
import ListSyncProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The daemon's Unix socket server: accepts connections, checks each peer against the allowlist,
/// and gives allowed ones a pipeline of small handlers —
/// `BackPressureHandler` → ``LineFrameDecoder`` → ``MessageDecoder`` → ``ConnectionHandler``.
///
/// It listens on a socket passed by systemd (``Listener/activated(descriptor:)``) or on the
/// configured path (``Listener/path(_:mode:)``), pushes heartbeats to every open connection, and
/// at shutdown stops accepting and says `goodbye` to everyone.
final class SocketServer: Sendable {
    /// Where to listen.
    enum Listener: Sendable, Hashable, CustomStringConvertible {
        /// Bind this path (refusing to steal a live socket) and give it `mode`.
        case path(String, mode: mode_t)
        /// Serve on a listening socket systemd passed.
        case activated(descriptor: Int32)

        var description: String {
            switch self {
            case .path(let path, _): return path
            case .activated(let descriptor): return "descriptor \(descriptor) (socket-activated)"
            }
        }
    }

    let context: ServerContext
    private let serverChannel: any Channel
    private let socketFile: UnixSocketFile?
    private let access: AccessList
    private let heartbeatInterval: NIOLockedValueBox<Duration>
    private let pool: NIOThreadPool

    private init(
        context: ServerContext, serverChannel: any Channel, socketFile: UnixSocketFile?, access: AccessList,
        pool: NIOThreadPool
    ) {
        self.context = context
        self.serverChannel = serverChannel
        self.socketFile = socketFile
        self.access = access
        self.heartbeatInterval = NIOLockedValueBox(context.configuration.heartbeatInterval)
        self.pool = pool
    }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - pool: Where group memberships are looked up (NSS calls block).
    /// - Throws: ``ServerError``.
    static func start(
        listener: Listener, context: ServerContext, group: any EventLoopGroup, pool: NIOThreadPool
    ) async throws(ServerError) -> SocketServer {
        let access = AccessList(context.configuration.access)
        let configuration = context.configuration
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: Self.listenBacklog)
            .serverChannelInitializer { channel in Self.setCloseOnExec(channel) }
            .childChannelOption(
                .writeBufferWaterMark,
                value: .init(low: configuration.writeBufferLowWaterMark, high: configuration.writeBufferHighWaterMark)
            )
            .childChannelInitializer { channel in
                Self.setCloseOnExec(channel).flatMap {
                    Self.initialize(channel, context: context, accessList: access, pool: pool)
                }
            }
        let serverChannel: any Channel
        var socketFile: UnixSocketFile?
        switch listener {
        case .activated(let descriptor):
            do {
                serverChannel = try await bootstrap.withBoundSocket(descriptor).get()
            } catch {
                throw .adoptionFailed(descriptor: descriptor, reason: "\(error)")
            }
        case .path(let path, let mode):
            try UnixSocketFile.prepare(path: path)
            // Nobody but the owner can connect between bind and chmod.
            let previousMask = umask(0o077)
            do {
                serverChannel = try await bootstrap.bind(unixDomainSocketPath: path).get()
            } catch {
                umask(previousMask)
                throw .bindFailed(path: path, reason: "\(error)")
            }
            umask(previousMask)
            do {
                socketFile = try UnixSocketFile(boundAt: path, mode: mode)
            } catch {
                try? await serverChannel.close()
                throw error
            }
        }
        return SocketServer(context: context, serverChannel: serverChannel, socketFile: socketFile, access: access, pool: pool)
    }

    /// Reads the peer's credentials and builds its pipeline: the full one for peers the list in
    /// force now allows, a refusal for the others. The socket is already close-on-exec
    /// (``setCloseOnExec(_:)``). The connection handler checks again once it is registered if a
    /// reload changed the list meanwhile (``AccessList``).
    private static func initialize(
        _ channel: any Channel, context: ServerContext, accessList: AccessList, pool: NIOThreadPool
    ) -> EventLoopFuture<Void> {
        let accepted = accessList.snapshot
        let access = accepted.access
        guard let options = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let credentials: EventLoopFuture<listsync_peer_credentials> = options.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(listsync_peer_credentials_option()))
        return credentials.and(Self.supplementaryGroups(of: options)).flatMap { credentials, groups -> EventLoopFuture<(PeerAccess.Peer, Bool)> in
            let peer = PeerAccess.Peer(
                processID: credentials.pid, userID: credentials.uid, groupID: credentials.gid, supplementaryGroupIDs: groups)
            if let decision = access.quickDecision(for: peer) {
                return channel.eventLoop.makeSucceededFuture((peer, decision))
            }
            return pool.runIfActive(eventLoop: channel.eventLoop) { (peer, access.allows(peer)) }
        }.flatMapThrowing { peer, allowed in
            let pipeline = channel.pipeline.syncOperations
            guard allowed else {
                context.logger.notice("refused a connection", metadata: ["peer": "\(peer)"])
                try pipeline.addHandler(PeerRefusalHandler())
                return
            }
            let mailbox = ConnectionMailbox(eventLoop: channel.eventLoop, budget: context.budget, peer: peer)
            try pipeline.addHandlers([
                BackPressureHandler(),
                ByteToMessageHandler(LineFrameDecoder(mailbox: mailbox)),
                MessageDecoder(),
                ConnectionHandler(
                    server: context, peer: peer, mailbox: mailbox,
                    admission: .init(accessList: accessList, generation: accepted.generation, pool: pool)),
            ])
        }
    }

    /// Applies reloaded settings: the allowlist and the heartbeat interval. Every open connection
    /// is checked against the new allowlist (group lookups run on the pool); those no longer
    /// allowed get `error` `not_permitted` and are closed. Connections accepted under the old
    /// list and not registered yet check themselves when they are (``AccessList``).
    func update(access: PeerAccess, heartbeatInterval: Duration) async {
        self.access.replace(with: access)
        self.heartbeatInterval.withLockedValue { $0 = heartbeatInterval }
        let connections = self.context.connections.all
        let revoked: [ConnectionMailbox]
        do {
            revoked = try await self.pool.runIfActive {
                connections.filter { connection in connection.peer.map { !access.allows($0) } ?? false }
            }
        } catch {
            // Only while the daemon stops: the pool runs no more work.
            self.context.logger.warning(
                "cannot check the open connections against the new allowlist: the thread pool refused the work",
                metadata: ["error": "\(error)"])
            return
        }
        for connection in revoked {
            connection.revoke()
        }
    }

    /// Pushes a heartbeat to every open connection each interval, until the task is cancelled.
    /// The line is encoded once per beat and shared.
    func runHeartbeats() async {
        while !Task.isCancelled {
            let interval = self.heartbeatInterval.withLockedValue { $0 }
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let milliseconds = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
            let line = ByteBuffer(bytes: ServerMessage.heartbeat(time: milliseconds).encoded())
            for connection in self.context.connections.all {
                connection.sendHeartbeat(line)
            }
        }
    }

    /// Stops accepting, sends `goodbye` `shutdown` to every connection and waits (boundedly) for
    /// them to close; removes the socket file if the server bound it.
    func shutdown() async {
        try? await self.serverChannel.close()
        let closings = self.context.connections.all.map { $0.sayGoodbye(.shutdown) }
        if !closings.isEmpty {
            _ = try? await EventLoopFuture.andAllComplete(closings, on: self.serverChannel.eventLoop).get()
        }
        self.socketFile?.remove()
    }
}
