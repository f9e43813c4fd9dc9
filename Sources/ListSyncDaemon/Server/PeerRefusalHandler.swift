import ListSyncProtocol
import NIOCore

/// The whole pipeline of a connection from a peer outside the allowlist: it sends
/// `error` `not_permitted` and closes.
final class PeerRefusalHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        let error = ServerMessage.error(ErrorMessage(id: nil, code: .notPermitted, message: "this user may not connect"))
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(channel.allocator.buffer(bytes: error.encoded()))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
