import ListFormats
import ListSyncProtocol
import NIOCore
import NIOEmbedded
import Testing
@testable import ListSyncDaemon

@Suite struct ConnectionHandlerTests {
    @Test func requestsBeforeHelloAreRefusedAndTheConnectionStaysOpen() throws {
        let connection = try EmbeddedConnection()
        try connection.send(.ping(id: RequestID(3)))
        #expect(try connection.received() == [.error(ErrorMessage(id: RequestID(3), code: .helloRequired, message: "the first message must be hello"))])
        try connection.send(.hello(ClientHello()))
        guard case .hello(let hello) = try connection.received().first else { throw TestFailure(description: "no hello") }
        #expect(hello.protocolVersion == 2)
        #expect(hello.instance == EmbeddedConnection.epoch)
        #expect(connection.channel.isActive)
    }

    @Test func noCommonVersionClosesTheConnection() throws {
        let connection = try EmbeddedConnection()
        try connection.send(.hello(ClientHello(protocols: [3, 4])))
        #expect(try connection.received().map(\.errorCode) == [.unsupportedVersion])
        #expect(!connection.channel.isActive)
    }

    @Test func malformedRequestsGetErrorsAndTheConnectionGoesOn() throws {
        let connection = try EmbeddedConnection()
        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        try connection.send("{nope\n\n{\"type\":\"subscribe\",\"id\":1}\n{\"type\":\"subscribe\",\"id\":2,\"watch\":\"x\"}\n")
        #expect(try connection.received().map(\.errorCode) == [.badJSON, .badRequest, .unknownWatch])
        try connection.send(.ping(id: RequestID(4)))
        #expect(try connection.received() == [.reply(Reply(id: RequestID(4), result: .pong))])
    }

    @Test func aLineOverTheLimitIsAnsweredAndClosesTheConnection() throws {
        let connection = try EmbeddedConnection(lineLimit: 64)
        try connection.send(String(repeating: "y", count: 40))
        #expect(connection.channel.isActive)
        try? connection.send(String(repeating: "y", count: 40))
        #expect(try connection.received().map(\.errorCode) == [.lineTooLong])
        #expect(!connection.channel.isActive)
    }

    @Test func aSubscriptionSendsTheReplySnapshotStatusThenChangesetsInOrder() throws {
        let connection = try EmbeddedConnection()
        let feed = connection.addFeed("w")
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: [1, 2, 3])
        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        let start = try connection.received()
        #expect(start.first == .reply(Reply(id: RequestID(1), result: .subscribed(.init(watch: "w", mode: .snapshot, cursor: Cursor(epoch: EmbeddedConnection.epoch, seq: 0))))))
        #expect(start.dropFirst().first?.snapshotChunk?.last == true)
        #expect(start.dropFirst(2).map(\.statusState) == [.ok])

        publisher.publish(ids: [1, 3, 4])
        publisher.publish(ids: [4, 1])
        #expect(try connection.received().map(\.changesetSeq) == [1, 2])

        try connection.send(.unsubscribe(id: RequestID(2), watch: "w"))
        #expect(try connection.received() == [.reply(Reply(id: RequestID(2), result: .unsubscribed(watch: "w")))])
        publisher.publish(ids: [5])
        #expect(try connection.received().isEmpty)
        #expect(feed.subscriberCount == 0)
    }

    @Test func aSubscriptionToAWatchWithoutAVersionGetsItsSnapshotWhenItLoads() throws {
        let connection = try EmbeddedConnection()
        let feed = connection.addFeed("w")
        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        let start = try connection.received()
        #expect(start.first == .reply(Reply(id: RequestID(1), result: .subscribed(.init(watch: "w", mode: .snapshot, cursor: nil)))))
        #expect(start.dropFirst().map(\.statusState) == [.loading])
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: [1])
        let loaded = try connection.received()
        #expect(loaded.first?.snapshotChunk?.cursor.seq == 0)
        #expect(loaded.dropFirst().map(\.statusState) == [.ok])
    }

    @Test func anUnwritableSubscriberReceivesNothingThenCatchesUpFromTheHistoryInOrder() throws {
        var (connection, publisher) = try EmbeddedConnection.subscribed()
        let feed = publisher.feed

        connection.setWritable(false)
        for version in 2...6 {
            publisher.publish(ids: Array(1...version))
        }
        #expect(try connection.received().isEmpty)
        connection.setWritable(true)
        #expect(try connection.received().map(\.changesetSeq) == [1, 2, 3, 4, 5])
    }

    @Test func aSubscriberThatFellOutOfTheHistoryIsResynchronisedWithAFreshSnapshot() throws {
        var (connection, publisher) = try EmbeddedConnection.subscribed(historyLength: 2)
        let feed = publisher.feed

        connection.setWritable(false)
        for version in 2...6 {
            publisher.publish(ids: Array(1...version))
        }
        connection.setWritable(true)
        let caughtUp = try connection.received()
        #expect(caughtUp.count == 1)
        #expect(caughtUp.first?.snapshotChunk?.cursor.seq == 5)
        #expect(caughtUp.first?.snapshotChunk?.fresh == true)
        publisher.publish(ids: [7])
        #expect(try connection.received().map(\.changesetSeq) == [6])
    }

    @Test func aSubscriberSlowPastTheBoundGetsGoodbyeAndIsClosed() throws {
        let (connection, publisher) = try EmbeddedConnection.subscribed { $0.slowConsumerTimeout = .seconds(3) }
        let feed = publisher.feed

        connection.setWritable(false)
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(connection.channel.isActive)
        connection.setWritable(true)
        connection.setWritable(false)
        // The deadline restarts with each stall.
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(connection.channel.isActive)
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(try connection.received() == [.goodbye(reason: .slowConsumer)])
        connection.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!connection.channel.isActive)
        #expect(feed.subscriberCount == 0)
    }

    @Test func aRemovedWatchEndsTheSubscriptionAfterItsLastChangesets() throws {
        var (connection, publisher) = try EmbeddedConnection.subscribed()
        let feed = publisher.feed
        connection.setWritable(false)
        publisher.publish(ids: [1, 2])
        feed.remove()
        connection.setWritable(true)
        let last = try connection.received()
        #expect(last.map(\.changesetSeq) == [1, nil])
        #expect(last.last?.statusState == .removed)
        #expect(feed.subscriberCount == 0)
    }

    @Test func resubscribingWithACursorResumesOnTheSameConnection() throws {
        let connection = try EmbeddedConnection()
        let feed = connection.addFeed("w")
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: [1])
        publisher.publish(ids: [1, 2])
        publisher.publish(ids: [1, 2, 3])
        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: Cursor(epoch: EmbeddedConnection.epoch, seq: 1)))
        let resumed = try connection.received()
        #expect(resumed.first == .reply(Reply(id: RequestID(1), result: .subscribed(.init(watch: "w", mode: .resume, cursor: Cursor(epoch: EmbeddedConnection.epoch, seq: 2))))))
        #expect(resumed.dropFirst().map(\.changesetSeq) == [2, nil])
        #expect(resumed.last?.statusState == .ok)
    }

    @Test func heartbeatsGoOnlyToOpenWritableConnections() throws {
        let connection = try EmbeddedConnection()
        let heartbeat = ByteBuffer(bytes: ServerMessage.heartbeat(time: 5).encoded())
        let handle = try #require(connection.context.connections.all.first)
        handle.sendHeartbeat(heartbeat)
        #expect(try connection.received().isEmpty)
        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        handle.sendHeartbeat(heartbeat)
        #expect(try connection.received() == [.heartbeat(time: 5)])
        connection.setWritable(false)
        handle.sendHeartbeat(heartbeat)
        #expect(try connection.received().isEmpty)
    }

    @Test func aLargeSnapshotIsSentInChunksAsTheConnectionDrains() throws {
        let connection = try EmbeddedConnection { $0.snapshotChunkSize = 1024 }
        let feed = connection.addFeed("w")
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: Array(0..<500))
        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        // Becomes unwritable right after the reply: the snapshot waits.
        connection.channel.isWritable = false
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        #expect(try connection.received().count == 1)
        connection.setWritable(true)
        let chunks = try connection.received().compactMap(\.snapshotChunk)
        #expect(chunks.count > 10)
        #expect(chunks.map(\.chunk) == Array(0..<chunks.count))
        #expect(chunks.flatMap { $0.sections.flatMap(\.records) }.count == 500)
    }
}
