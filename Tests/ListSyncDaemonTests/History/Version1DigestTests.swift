import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// The version 1 digest is computed only while a version 1 client follows the watch, and for as
/// many versions as the history keeps after the last one left; never for version 2 clients alone.
@Suite struct Version1DigestTests {
    static func carriesV1Digest(_ publication: WatchPublication?) -> Bool {
        publication?.changesetLine.map { ServerMessage.carriedV1Digest(in: $0.array) != nil } ?? false
    }

    @Test func computedWhileAVersion1ClientFollowsAndForAHistoryLengthAfter() throws {
        let v2 = try EmbeddedConnection()
        let feed = v2.addFeed("w", historyLength: 2)
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: Array(0..<5))
        try v2.send(.hello(ClientHello(protocols: [1, 2])))
        try v2.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        _ = try v2.received()
        #expect(!feed.wantsV1Digests, "a version 2 client alone")
        #expect(!Self.carriesV1Digest(publisher.publish(ids: Array(0..<6))))

        let v1 = try EmbeddedConnection()
        v1.watches.replace(with: [feed])
        try v1.send(.hello(ClientHello(protocols: [1])))
        try v1.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        _ = try v1.received()
        #expect(feed.wantsV1Digests)
        #expect(Self.carriesV1Digest(publisher.publish(ids: Array(0..<7))))
        try v1.send(.unsubscribe(id: RequestID(2), watch: "w"))
        _ = try v1.received()
        // Two more versions (the history's length) still get it, then no more.
        #expect(Self.carriesV1Digest(publisher.publish(ids: Array(0..<8))))
        #expect(Self.carriesV1Digest(publisher.publish(ids: Array(0..<9))))
        #expect(!feed.wantsV1Digests)
        #expect(!Self.carriesV1Digest(publisher.publish(ids: Array(0..<10))))
    }
}
