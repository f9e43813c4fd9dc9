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
}
