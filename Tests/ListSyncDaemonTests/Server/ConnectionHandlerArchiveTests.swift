import ListFormats
import ListSyncProtocol
import NIOCore
import NIOEmbedded
import Testing
@testable import ListSyncDaemon

/// Changesets older than what memory keeps, read back from the log on disk for one subscriber.
@Suite struct ConnectionHandlerArchiveTests {
    /// A line read back from disk is the connection's own copy: it counts against the client
    /// buffer budget until written, so a connection that holds buffered data while a large old
    /// changeset is read for it is cut off when that takes the budget over its limit.
    @Test func aChangesetReadBackFromDiskCountsAgainstTheBudget() throws {
        let scratch = try ScratchDirectory()
        var store = WatchStateStore(stateDirectory: scratch.path, name: "w", historyLength: 100, historyMaxBytes: 1 << 20, crashPoints: .none)
        let connection = try EmbeddedConnection { $0.clientBufferBudget = 4000 }
        let watch = WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"])
        // Memory keeps only the newest changeset; the others are read back from the log.
        let feed = WatchFeed(watch: watch, epoch: EmbeddedConnection.epoch, historyLength: 100, cacheBytes: 100, archive: store.archive)
        feed.finishRestoring()
        connection.watches.replace(with: [feed])
        var publisher = Publisher(feed: feed)
        for ids in [[1], Array(1...300), Array(1...300).map { $0 * 2 }] {
            let published = publisher.publish(ids: ids)
            let publication = try #require(published)
            try store.save(try #require(publication.version), changeset: publication.changesetLine, watch: watch)
            try store.settleLog()
        }
        let old = try #require(store.archive.line(publishing: 1, of: EmbeddedConnection.epoch))
        #expect(old.count > 4000, "the changeset read back is larger than the budget")

        try connection.send(.hello(ClientHello()))
        _ = try connection.received()
        // The subscription waits, unwritable, while the client leaves a request line unfinished:
        // the connection holds buffered data.
        connection.setWritable(false)
        try connection.send(.subscribe(id: RequestID(1), watch: "w", since: Cursor(epoch: EmbeddedConnection.epoch, seq: 0)))
        let reply = try connection.received()
        #expect(reply.count == 1)
        try connection.send("{\"op\":")
        connection.setWritable(true)

        let sent = try connection.received()
        #expect(sent.last == .goodbye(reason: .slowConsumer), "sent: \(sent.map(\.changesetSeq))")
        #expect(!connection.channel.isActive)
    }
}
