import ListSyncProtocol
import NIOCore
import Testing
@testable import ListSyncDaemon

@Suite struct EncodedSnapshotTests {
    /// The snapshot chunks written to `connection`, in order.
    private static func chunks(_ connection: EmbeddedConnection) throws -> [ByteBuffer] {
        try connection.receivedBuffers().filter { $0.readableBytesView.starts(with: Array(#"{"type":"snapshot""#.utf8)) }
    }

    /// Where each of `buffers` keeps its bytes.
    private static func storage(_ buffers: [ByteBuffer]) -> [UnsafeRawPointer?] {
        buffers.map { $0.withUnsafeReadableBytes { UnsafeRawPointer($0.baseAddress) } }
    }

    @Test func subscribersOfOneVersionWriteTheSameEncodingWhichIsReleasedAfterTheLastOne() throws {
        let first = try EmbeddedConnection { $0.snapshotChunkSize = 1024 }
        let feed = first.addFeed("w")
        let second = try EmbeddedConnection { $0.snapshotChunkSize = 1024 }
        second.watches.replace(with: [feed])
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: Array(0..<300))
        for connection in [first, second] {
            try connection.send(.hello(ClientHello()))
            _ = try connection.received()
        }
        let budget = first.context.budget

        // The first subscriber cannot write yet; the second reads the whole snapshot meanwhile.
        first.channel.isWritable = false
        try first.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        #expect(try first.received().count == 1)
        try second.send(.subscribe(id: RequestID(1), watch: "w", since: nil))
        let secondChunks = try Self.chunks(second)
        #expect(secondChunks.count > 5)
        // Encoded once, held for the first subscriber, counted once.
        #expect(budget.usedBytes > 0)

        first.setWritable(true)
        let firstChunks = try Self.chunks(first)
        #expect(Self.storage(firstChunks) == Self.storage(secondChunks))
        // Both are done with it: released, and the budget is back to nothing.
        #expect(budget.usedBytes == 0)

        // A later subscriber to the same version gets a new encoding of the same lines.
        try second.send(.subscribe(id: RequestID(2), watch: "w", since: nil))
        let later = try Self.chunks(second)
        #expect(later == secondChunks)
        #expect(Self.storage(later).first != Self.storage(secondChunks).first)
    }

    /// A feed of 3,000 rows, restored and published, without a connection.
    private static func publishedFeed() throws -> (WatchFeed, WatchVersion) {
        let feed = WatchFeed(
            watch: WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"]), epoch: EmbeddedConnection.epoch,
            historyLength: 10)
        feed.finishRestoring()
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: Array(0..<3000))
        return (feed, try #require(feed.currentVersion))
    }

    /// Issue 19 item 3: a snapshot read by one subscriber is not held whole — each chunk is
    /// released once the reader took it (a 1M-row list's encoding was 1.4× its file at the
    /// daemon's peak), so what it holds is counted in bytes, not in the list's size.
    @Test func aLoneReaderLeavesNoChunkHeld() throws {
        let (feed, version) = try Self.publishedFeed()
        let reader = try #require(feed.snapshot(of: version, chunkSize: 1024, budget: nil))
        var lines: [ByteBuffer] = []
        while let chunk = reader.chunk(lines.count) {
            lines.append(chunk)
            #expect(reader.snapshot.heldBytes == 0, "chunk \(lines.count - 1) still held")
        }
        #expect(lines.count > 20)
        #expect(lines.reduce(0) { $0 + $1.readableBytes } > 20 * 1024)
    }

    /// Two readers: the snapshot holds exactly the chunks the slower one has not taken yet; a
    /// subscriber arriving once the first chunk is gone gets a new encoding of the same lines.
    @Test func theSnapshotHoldsTheWindowBetweenItsReaders() throws {
        let (feed, version) = try Self.publishedFeed()
        let fast = try #require(feed.snapshot(of: version, chunkSize: 1024, budget: nil))
        let slow = try #require(feed.snapshot(of: version, chunkSize: 1024, budget: nil))
        #expect(fast.snapshot === slow.snapshot)
        var fastLines: [ByteBuffer] = []
        for index in 0..<10 {
            fastLines.append(try #require(fast.chunk(index)))
        }
        // Ten chunks taken by one reader only: all ten held, and no more.
        #expect(fast.snapshot.heldBytes == fastLines.reduce(0) { $0 + $1.readableBytes })
        let slowFirst = try #require(slow.chunk(0))
        #expect(slowFirst.readableBytes == fastLines[0].readableBytes)
        #expect(fast.snapshot.heldBytes == fastLines.dropFirst().reduce(0) { $0 + $1.readableBytes })

        // The first chunk is gone: a third subscriber gets its own snapshot, of the same lines.
        let late = try #require(feed.snapshot(of: version, chunkSize: 1024, budget: nil))
        #expect(late.snapshot !== fast.snapshot)
        #expect(try #require(late.chunk(0)) == slowFirst)

        // The slow reader gone (its subscription ended): nothing is held for it.
        let shared = fast.snapshot
        withExtendedLifetime(slow) {}
        _ = consume slow
        #expect(shared.heldBytes == 0)
        #expect(fast.chunk(10) != nil)
        #expect(shared.heldBytes == 0)
    }
}
