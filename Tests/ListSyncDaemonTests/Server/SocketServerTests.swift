import Glibc
import ListFormats
import ListSyncProtocol
import Logging
import NIOCore
import NIOPosix
import Testing
@testable import ListSyncDaemon

@Suite struct SocketServerTests {
    @Test func aSubscriberThatStopsReadingIsCutOffWhileTheOthersKeepUp() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/s.sock"
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let watches = WatchDirectory()
        let feed = WatchFeed(watch: WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"]), epoch: EmbeddedConnection.epoch, historyLength: 1000)
        watches.replace(with: [feed])
        var configuration = ServerConfiguration(
            access: PeerAccess(daemonUserID: getuid(), allowedUserIDs: [], allowedGroups: []),
            heartbeatInterval: .seconds(60))
        configuration.writeBufferLowWaterMark = 4 << 10
        configuration.writeBufferHighWaterMark = 16 << 10
        configuration.slowConsumerTimeout = .seconds(2)
        configuration.goodbyeGracePeriod = .milliseconds(100)
        let context = ServerContext(configuration: configuration, epoch: EmbeddedConnection.epoch, watches: watches, logger: Logger(label: "test"))
        let server = try await SocketServer.start(listener: .path(path, mode: 0o600), context: context, group: group, pool: pool)

        var publisher = Publisher(feed: feed)
        publisher.publish(ids: Array(0..<200))
        let reader = try MirrorSubscriber(socketPath: path, watch: "w")
        let sleeper = try ProtocolClient(socketPath: path)
        try sleeper.handshake()
        _ = try sleeper.request { .subscribe(id: $0, watch: "w", since: nil) }

        // 60 versions, each changing every row's long name: about 20 KiB per changeset, published
        // while the reader reads.
        let padding = String(repeating: "p", count: 80)
        let publishing = Task.detached { [publisher] in
            var publisher = publisher
            for version in 1...60 {
                publisher.publish(ids: Array(0..<200), tag: "-\(version)-\(padding)")
            }
            return publisher
        }
        #expect(try reader.waitUntil(timeout: .seconds(30)) { $0.changesets.count == 60 })
        publisher = await publishing.value
        #expect(reader.changesets.map(\.seq) == Array(1...60))

        // The sleeper is disconnected once it stayed unwritable past the timeout…
        // Generous: the suite runs beside every other one on two cores.
        let deadline = ContinuousClock.now + .seconds(30)
        while context.connections.count > 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(context.connections.count == 1)
        // …having received only what fitted in its buffers, never everything.
        let received = sleeper.messagesUntilClosedOrSilent()
        #expect(received.compactMap(\.changesetSeq).count < 60)
        #expect(feed.subscriberCount == 1)

        // The reader is still served.
        publisher.publish(ids: [1])
        #expect(try reader.waitUntil { $0.changesets.count == 61 })

        await server.shutdown()
        #expect(reader.client.messagesUntilClosedOrSilent().last == .goodbye(reason: .shutdown))
        #expect(access(path, F_OK) != 0)
        try await pool.shutdownGracefully()
        try await group.shutdownGracefully()
    }
}

extension ProtocolClient {
    /// The messages until the server closes the connection or stays silent for 3 s.
    ///
    /// This server runs in the test process, and NIO accepts connections without
    /// `SOCK_CLOEXEC`: a child process another test spawns meanwhile inherits the server's end of
    /// the connection, so its close reaches the client only when that child exits. Whether the
    /// server dropped the connection is checked on the server's side instead.
    fileprivate func messagesUntilClosedOrSilent() -> [ServerMessage] {
        var messages: [ServerMessage] = []
        while let message = try? self.next(timeout: .seconds(3)) {
            messages.append(message)
        }
        return messages
    }
}
