import ListSyncProtocol
import NIOCore

/// The first step of a connection's pipeline: cuts the byte stream into protocol lines (without
/// their line ends), at most ``LineFraming/maximumLineLength`` bytes each.
///
/// A longer line — even one whose end has not arrived — throws ``LineTooLong``: the decoder then
/// discards the rest of the input, and the connection handler answers `line_too_long` and closes.
/// The decoder never buffers more than the limit plus one read. It tells the connection's
/// ``ConnectionMailbox`` how much it buffers of an unfinished line, which counts against the
/// ``ClientBufferBudget`` and starts the unfinished-line time limit.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// A client sent a line longer than the limit.
    struct LineTooLong: Error, Hashable {
        var limit: Int
    }

    let limit: Int
    /// Where the buffered bytes are reported; `nil` in tests of the framing alone.
    let mailbox: ConnectionMailbox?
    /// How much of the buffered bytes is known to hold no line end.
    private var searched = 0

    init(limit: Int = LineFraming.maximumLineLength, mailbox: ConnectionMailbox? = nil) {
        self.limit = limit
        self.mailbox = mailbox
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        // What stays buffered once this call returns is an unfinished line; its storage is counted.
        defer { self.mailbox?.noteUnfinishedLine(bytes: buffer.readableBytes == 0 ? 0 : buffer.capacity) }
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
