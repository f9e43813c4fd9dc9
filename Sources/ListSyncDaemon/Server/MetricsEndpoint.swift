import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP endpoint of the metrics (`/metrics`, `/live`, `/ready`; see ``MetricsHTTPHandler``):
/// on a TCP socket systemd passed (`listsyncd-metrics.socket`), or bound at `metrics_listen`.
///
/// The pipeline is SwiftNIO's `IdleStateHandler`, its HTTP/1.1 server codec (no hand-parsed
/// HTTP) with heads bounded in bytes, and the handler; the same exposition is also served over
/// the control socket (the `metrics` request). At most ``Limits/maximumConnections`` are open at
/// once (``MetricsConnections``).
final class MetricsEndpoint: Sendable {
    /// What one client may hold of the endpoint.
    struct Limits: Sendable, Hashable {
        /// A connection that reads and writes nothing for this long is closed.
        var idleTimeout: Duration = .seconds(30)
        /// The most connections open at once (Prometheus keeps one per scrape target).
        var maximumConnections = 64
        /// The most bytes of a request's header fields, one or all (431 past it). A scrape's
        /// head is a few hundred bytes.
        var maximumHeadBytes = 8 << 10

        /// The test hooks that shorten the idle timeout (milliseconds) and lower the cap, so
        /// tests need not wait 30 s nor open 64 connections; for tests only.
        static let idleTimeoutVariable = "LISTSYNCD_TEST_METRICS_IDLE_TIMEOUT_MS"
        static let maximumConnectionsVariable = "LISTSYNCD_TEST_METRICS_MAX_CONNECTIONS"

        /// The limits, with the test hooks' values where `environment` sets them.
        init(environment: ProcessEnvironment) {
            if let milliseconds = environment[Self.idleTimeoutVariable].flatMap(Int.init), milliseconds > 0 {
                self.idleTimeout = .milliseconds(milliseconds)
            }
            if let count = environment[Self.maximumConnectionsVariable].flatMap(Int.init), count > 0 {
                self.maximumConnections = count
            }
        }
    }

    /// Where to listen.
    enum Listener: Sendable, Hashable, CustomStringConvertible {
        /// Bind this address.
        case address(MetricsAddress)
        /// Serve on a listening socket systemd passed.
        case activated(descriptor: Int32)

        var description: String {
            switch self {
            case .address(let address): return "http://\(address)/metrics"
            case .activated(let descriptor): return "descriptor \(descriptor) (socket-activated)"
            }
        }
    }

    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Starts serving `context`'s metrics.
    ///
    /// - Throws: ``ServerError`` when the address cannot be bound or the passed socket not served.
    static func start(
        listener: Listener, context: ServerContext, group: any EventLoopGroup, limits: Limits
    ) async throws(ServerError) -> MetricsEndpoint {
        let connections = MetricsConnections(limit: limits.maximumConnections, logger: context.logger)
        let headLimits = {
            var configuration = NIOHTTPDecoderLimitConfiguration()
            configuration.maxHeaderFieldSize = limits.maximumHeadBytes
            configuration.maxHeaderListSize = limits.maximumHeadBytes
            return configuration
        }()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in SocketServer.setCloseOnExec(channel) }
            .childChannelInitializer { channel in
                switch connections.admit(channel) {
                case .refused:
                    return channel.close()
                case .admittedEvicting(let evicted):
                    evicted.close(promise: nil)
                case .admitted:
                    break
                }
                channel.closeFuture.whenComplete { _ in connections.remove(channel) }
                return SocketServer.setCloseOnExec(channel).flatMapThrowing {
                    // On the channel's event loop: the handlers are added synchronously.
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(allTimeout: TimeAmount(limits.idleTimeout)))
                    // Protocol errors are answered by the handler (400, or 431 for a head too large).
                    try pipeline.configureHTTPServerPipeline(
                        withErrorHandling: false, withEncoderConfiguration: HTTPResponseEncoder.Configuration(),
                        withDecoderLimitConfiguration: headLimits)
                    try pipeline.addHandler(MetricsHTTPHandler(server: context, connections: connections))
                }
            }
        switch listener {
        case .activated(let descriptor):
            do {
                return MetricsEndpoint(channel: try await bootstrap.withBoundSocket(descriptor).get())
            } catch {
                throw .adoptionFailed(descriptor: descriptor, reason: "\(error)")
            }
        case .address(let address):
            do {
                return MetricsEndpoint(channel: try await bootstrap.bind(host: address.host, port: address.port).get())
            } catch {
                throw .bindFailed(path: "metrics_listen \(address)", reason: "\(error)")
            }
        }
    }

    /// Stops accepting and closes the listening socket.
    func shutdown() async {
        try? await self.channel.close()
    }
}
