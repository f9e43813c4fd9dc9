import ListSyncProtocol
import NIOCore

/// The whole pipeline of a connection from a peer outside the allowlist: it sends
/// `error` `not_permitted` and closes.
///
/// The close lingers: the daemon keeps the connection open, reading (and dropping) what the peer
/// sends, until the peer closes or ``lingering`` passes. A client says hello as soon as it
/// connects; if the daemon closed first, even only its side for writing, that write could fail
/// (`EPIPE`, or a client library that closes on end of file) before the client read the error,
/// and the client would report a closed connection instead of the daemon's reason.
final class PeerRefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// How long a refused peer may keep its end open after the error.
    static let lingering = TimeAmount.seconds(2)

    func channelActive(context: ChannelHandlerContext) {
        let error = ServerMessage.error(ErrorMessage(id: nil, code: .notPermitted, message: "this user may not connect"))
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(channel.allocator.buffer(bytes: error.encoded()))).whenComplete { _ in
            channel.eventLoop.scheduleTask(in: Self.lingering) { channel.close(promise: nil) }
        }
    }

    /// Drops what a refused peer sends.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
