import ListSyncProtocol
import NIOCore

/// The second step of a connection's pipeline: parses each line into a ``ClientMessage``, or the
/// ``ProtocolError`` the client gets back. Blank lines are skipped.
final class MessageDecoder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = Result<ClientMessage, ProtocolError>

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = Self.unwrapInboundIn(data)
        let result = Result { () throws(ProtocolError) in try MessageParser.clientMessage(ofLine: line.readableBytesView) }
        switch result {
        case .success(nil):
            return
        case .success(let message?):
            context.fireChannelRead(Self.wrapInboundOut(.success(message)))
        case .failure(let error):
            context.fireChannelRead(Self.wrapInboundOut(.failure(error)))
        }
    }
}
