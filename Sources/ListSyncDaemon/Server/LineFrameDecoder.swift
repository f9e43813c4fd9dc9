import ListSyncProtocol
import NIOCore

/// The first step of a connection's pipeline: cuts the byte stream into protocol lines (without
/// their line ends), at most ``LineFraming/maximumLineLength`` bytes each.
///
/// A longer line — even one whose end has not arrived — throws ``LineTooLong``: the decoder then
/// discards the rest of the input, and the connection handler answers `line_too_long` and closes.
/// The decoder never buffers more than the limit plus one read.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// A client sent a line longer than the limit.
    struct LineTooLong: Error, Hashable {
        var limit: Int
    }

    let limit: Int
    /// How much of the buffered bytes is known to hold no line end.
    private var searched = 0

    init(limit: Int = LineFraming.maximumLineLength) {
        self.limit = limit
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        switch LineFraming.nextLine(in: buffer.readableBytesView, searchedPrefix: self.searched, limit: self.limit) {
        case .line(let length, let consumed):
            let line = buffer.getSlice(at: buffer.readerIndex, length: length) ?? ByteBuffer()
            buffer.moveReaderIndex(forwardBy: consumed)
            self.searched = 0
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        case .incomplete(let resumeOffset):
            self.searched = resumeOffset
            return .needMoreData
        case .tooLong:
            throw LineTooLong(limit: self.limit)
        }
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without its `\n` is not a complete message: drop it.
        try self.decode(context: context, buffer: &buffer)
    }
}
