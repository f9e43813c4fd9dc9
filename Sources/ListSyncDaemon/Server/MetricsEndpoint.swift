import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP endpoint of the metrics (`/metrics`, `/live`, `/ready`; see ``MetricsHTTPHandler``):
/// on a TCP socket systemd passed (`listsyncd-metrics.socket`), or bound at `metrics_listen`.
///
/// The pipeline is SwiftNIO's HTTP/1.1 server codec (no hand-parsed HTTP) and the handler; the
/// same exposition is also served over the control socket (the `metrics` request).
final class MetricsEndpoint: Sendable {
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
    static func start(listener: Listener, context: ServerContext, group: any EventLoopGroup) async throws(ServerError) -> MetricsEndpoint {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in SocketServer.setCloseOnExec(channel) }
            .childChannelInitializer { channel in
                SocketServer.setCloseOnExec(channel).flatMapThrowing {
                    // On the channel's event loop: the handlers are added synchronously.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(server: context))
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
