import DurableFiles
@testable import FileWatching
import ListFormats
import ListSyncProtocol
import Logging
import NIOCore
import NIOEmbedded
@testable import ListSyncDaemon

/// A connection's pipeline on an `EmbeddedChannel`, with feeds the test publishes to directly:
/// every step is synchronous and time is the test's.
final class EmbeddedConnection {
    static let epoch = Epoch(rawValue: 0xfeed)

    let channel = EmbeddedChannel()
    let watches = WatchFeeds()
    let context: ServerContext

    init(
        configure: (inout ServerConfiguration) -> Void = { _ in }, lineLimit: Int = LineFraming.maximumLineLength,
        admission: ConnectionHandler.Admission? = nil
    ) throws {
        var configuration = ServerConfiguration(
            access: PeerAccess(daemonUserID: 1, allowedUserIDs: [], allowedGroups: []),
            heartbeatInterval: .seconds(15))
        configure(&configuration)
        // Work the server runs off its event loops (a version 1 digest) runs on the test's thread
        // too, the next time the test runs the loop: only that thread may touch an embedded loop.
        self.context = ServerContext(
            configuration: configuration, epoch: Self.epoch, watches: self.watches, offLoop: { eventLoop, work in eventLoop.submit(work) },
            logger: Logger(label: "test"))
        let mailbox = ConnectionMailbox(eventLoop: self.channel.eventLoop, budget: self.context.budget)
        try self.channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(LineFrameDecoder(limit: lineLimit, mailbox: mailbox)),
            MessageDecoder(),
            ConnectionHandler(
                server: self.context, peer: PeerAccess.Peer(processID: 1, userID: 1, groupID: 1), mailbox: mailbox, admission: admission),
        ])
        try self.channel.connect(to: SocketAddress(unixDomainSocketPath: "/unused")).wait()
    }

    /// A connection that said hello and subscribed to watch `w`, whose version 0 has one row;
    /// what the subscription sent so far is read.
    static func subscribed(
        historyLength: Int = 100, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> (EmbeddedConnection, Publisher) {
        let connection = try EmbeddedConnection(configure: configure)
        var publisher = Publisher(feed: connection.addFeed("w", historyLength: historyLength))
        publisher.publish(ids: [1])
        try connection.send(.hello(ClientHello()))
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        _ = try connection.received()
        return (connection, publisher)
    }

    /// A feed for a CSV watch called `name`, offered by the server.
    func addFeed(_ name: String, historyLength: Int = 100) -> WatchFeed {
        let feed = WatchFeed(
            watch: WatchConfiguration(name: name, path: "/\(name).csv", format: .csv, key: ["id"]), epoch: Self.epoch,
            historyLength: historyLength)
        // Nothing to read back: the tests publish into the feed themselves.
        feed.finishRestoring()
        self.watches.replace(with: self.watches.feeds + [feed])
        return feed
    }

    func send(_ text: String) throws {
        try self.channel.writeInbound(ByteBuffer(string: text))
        self.channel.embeddedEventLoop.run()
    }

    func send(_ message: ClientMessage) throws {
        try self.channel.writeInbound(ByteBuffer(bytes: message.encoded()))
        self.channel.embeddedEventLoop.run()
    }

    /// The buffers written to the client since the last call, as written.
    func receivedBuffers() throws -> [ByteBuffer] {
        self.channel.embeddedEventLoop.run()
        var buffers: [ByteBuffer] = []
        while let buffer = try self.channel.readOutbound(as: ByteBuffer.self) {
            buffers.append(buffer)
        }
        return buffers
    }

    /// Everything written to the client since the last call.
    func received() throws -> [ServerMessage] {
        var messages: [ServerMessage] = []
        for var buffer in try self.receivedBuffers() {
            while let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer.readSlice(length: newline - buffer.readerIndex + 1)!
                if let message = try MessageParser.serverMessage(ofLine: line.readableBytesView.dropLast()) {
                    messages.append(message)
                }
            }
        }
        return messages
    }

    /// Sets the channel's writability and tells the pipeline, as NIO does when its buffer crosses a water mark.
    func setWritable(_ writable: Bool) {
        self.channel.isWritable = writable
        self.channel.pipeline.fireChannelWritabilityChanged()
        self.channel.embeddedEventLoop.run()
    }
}

/// Publications made the tracker's way, from CSV text.
struct Publisher {
    var machine = FileTracker.StateMachine(watch: "w", epoch: EmbeddedConnection.epoch)
    let feed: WatchFeed

    init(feed: WatchFeed) {
        self.feed = feed
        self.machine = FileTracker.StateMachine(watch: feed.name, epoch: EmbeddedConnection.epoch)
    }

    /// Publishes the version whose rows are `ids` (name `n<id>-<tag>`); returns what was published.
    @discardableResult
    mutating func publish(ids: [Int], tag: String = "") -> WatchPublication? {
        let text = "id,name\n" + ids.map { "\($0),n\($0)\(tag)\n" }.joined()
        return self.publish(text)
    }

    @discardableResult
    mutating func publish(_ text: String) -> WatchPublication? {
        let read: Result<FileSnapshot, FileReadError> = .success(.present(bytes: FileBytes(Array(text.utf8)), identity: FileIdentity(fileID: FileID(device: 0, inode: 0), size: 0, modificationTime: .zero, statusChangeTime: .zero)))
        // As the tracker does: the version 1 digest while the feed wants it.
        guard
            let publication = self.machine.ingest(
                read, options: ReadOptions(format: .csv(delimiter: .comma), key: ["id"]), withV1Digest: self.feed.wantsV1Digests)
        else { return nil }
        self.feed.publish(publication)
        return publication
    }
}

extension ServerMessage {
    var changesetSeq: UInt64? {
        if case .changeset(let changeset) = self { return changeset.cursor.seq }
        return nil
    }

    var snapshotChunk: SnapshotChunk? {
        if case .snapshot(let chunk) = self { return chunk }
        return nil
    }

    var statusState: WatchState? {
        if case .status(let status) = self { return status.state }
        return nil
    }

    var errorCode: ProtocolErrorCode? {
        if case .error(let error) = self { return error.code }
        return nil
    }
}
