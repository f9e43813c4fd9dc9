import ListFormats
import ListSyncProtocol
import NIOCore
import NIOEmbedded
import Testing
@testable import ListSyncDaemon

/// Requests about a watch whose saved state is still being read back (just after a start).
@Suite struct ConnectionHandlerRestoreTests {
    /// A connection that said hello, and a watch `w` still restoring.
    static func connectionToARestoringWatch() throws -> (EmbeddedConnection, WatchFeed) {
        let connection = try EmbeddedConnection()
        let feed = WatchFeed(watch: WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"]), epoch: EmbeddedConnection.epoch, historyLength: 10)
        connection.watches.replace(with: [feed])
        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        return (connection, feed)
    }

    /// A `subscribe` waiting for the restore, then `unsubscribe`d, gets an answer of its own.
    @Test func aWaitingSubscribeThatIsUnsubscribedIsAnswered() throws {
        let (connection, feed) = try Self.connectionToARestoringWatch()
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        #expect(try connection.received().isEmpty, "the subscribe waits for the restore")
        try connection.send(.unsubscribe(id: RequestID(2), watch: "w"))
        #expect(
            try connection.received() == [
                .reply(Reply(id: RequestID(1), result: .unsubscribed(watch: "w"))),
                .reply(Reply(id: RequestID(2), result: .unsubscribed(watch: "w"))),
            ])
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: [1])
        feed.finishRestoring()
        #expect(try connection.received().isEmpty, "no subscription started")
        #expect(feed.subscriberCount == 0)
    }

    /// A `subscribe` waiting for the restore, then asked again, gets an answer of its own; the
    /// second one starts once the restore ends.
    @Test func aWaitingSubscribeThatIsAskedAgainIsAnswered() throws {
        let (connection, feed) = try Self.connectionToARestoringWatch()
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        try connection.send(.subscribe(id: RequestID(2), watch: "w", since: nil))
        #expect(try connection.received() == [.reply(Reply(id: RequestID(1), result: .unsubscribed(watch: "w")))])
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: [1])
        feed.finishRestoring()
        let sent = try connection.received()
        guard case .reply(let reply) = sent.first, case .subscribed = reply.result else {
            Issue.record("the second subscribe is not answered first: \(sent)")
            return
        }
        #expect(reply.id == RequestID(2))
        #expect(feed.subscriberCount == 1)
    }
}
