import ListFormats
import ListSyncProtocol
import NIOCore
import Testing
@testable import ListSyncDaemon

/// A version 1 client that needs the version 1 digest of a version no one computed it for: its
/// subscription holds its place while the connection has the digest computed off the event loop
/// (``ConnectionStateMachine/Action/computeV1Digest(_:_:)``), once per version, and then sends
/// everything in order — nothing after the digest overtakes it.
@Suite struct Version1DigestOffLoopTests {
    typealias Connection = ConnectionStateMachineTests.Connection

    /// The messages `lines` carry.
    static func messages(_ lines: [ConnectionStateMachine.OutgoingLine]) throws -> [ServerMessage] {
        try lines.compactMap { outgoing in
            try MessageParser.serverMessage(ofLine: Array(outgoing.line.readableBytesView.dropLast()))
        }
    }

    /// Computes `version`'s version 1 digest as the connection's thread pool does, on a thread
    /// that is no event loop.
    static func computeOffTheLoop(_ feed: WatchFeed, _ version: WatchVersion) async {
        await Task.detached { feed.computeV1Digest(of: version) }.value
    }

    @Test func aSnapshotWaitsForItsVersion1DigestThenGoesOut() async throws {
        var connection = Connection()
        // Published while no version 1 client followed: no version 1 digest.
        let (feed, _) = connection.addFeed("w", ids: Array(0..<50))
        let version = try #require(feed.currentVersion)
        #expect(version.computedV1Digest == nil)
        _ = connection.receive(.hello(ClientHello(protocols: [1])))
        let answer = connection.receive(.subscribe(id: RequestID(1), watch: "w", since: nil))
        #expect(answer.contains(ConnectionStateMachineTests.subscribed("w", id: 1, mode: .snapshot, cursor: version.cursor)))

        // Nothing to write until the digest is there; it is asked for once.
        #expect(connection.drain().isEmpty)
        #expect(connection.machine.v1DigestsToCompute().map(ConnectionStateMachineTests.Step.init) == [.computeV1Digest(seq: version.seq)])
        #expect(connection.machine.v1DigestsToCompute().isEmpty, "one computation per version")
        #expect(connection.drain().isEmpty)
        #expect(version.computedV1Digest == nil, "nothing computed it on the way")

        await Self.computeOffTheLoop(feed, version)
        #expect(connection.machine.v1DigestComputed(version).map(ConnectionStateMachineTests.Step.init) == [.pump])
        let chunks = try Self.messages(connection.drain()).compactMap(\.snapshotChunk)
        #expect(chunks.last?.last == true)
        #expect(chunks.last?.digest == ListDigest(of: version.list, version: .v1))
        #expect(connection.machine.v1DigestsToCompute().isEmpty)
    }

    @Test func aChangesetWaitsForItsVersion1DigestAndTheStatusAfterItWaitsToo() async throws {
        var connection = Connection()
        var (feed, publisher) = connection.addFeed("w", ids: [1])
        publisher.publish(ids: [1, 2])
        publisher.publish(ids: [1, 2, 3])
        let version = try #require(feed.currentVersion)
        #expect(version.seq == 2 && version.computedV1Digest == nil)
        _ = connection.receive(.hello(ClientHello(protocols: [1])))
        // Resuming from version 1: the changeset to version 2 needs version 2's version 1 digest.
        let answer = connection.receive(.subscribe(id: RequestID(1), watch: "w", since: Cursor(epoch: Connection.epoch, seq: 1)))
        #expect(answer.contains(ConnectionStateMachineTests.subscribed("w", id: 1, mode: .resume, cursor: version.cursor)))
        #expect(connection.drain().isEmpty)
        #expect(connection.machine.v1DigestsToCompute().map(ConnectionStateMachineTests.Step.init) == [.computeV1Digest(seq: 2)])

        // A status published meanwhile does not overtake the changeset.
        feed.remove()
        #expect(connection.drain().isEmpty)

        await Self.computeOffTheLoop(feed, version)
        #expect(connection.machine.v1DigestComputed(version).map(ConnectionStateMachineTests.Step.init) == [.pump])
        let messages = try Self.messages(connection.drain())
        #expect(messages.map(\.changesetSeq) == [2, nil])
        #expect(messages.last?.statusState == .removed)
        guard case .changeset(let changeset) = messages.first else {
            Issue.record("no changeset first: \(messages)")
            return
        }
        #expect(changeset.digest == ListDigest(of: version.list, version: .v1))
    }
}
