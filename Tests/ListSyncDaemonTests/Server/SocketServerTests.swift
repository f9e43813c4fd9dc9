import Glibc
import ListFormats
import ListSyncProtocol
import Logging
import NIOCore
import NIOPosix
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

@Suite struct SocketServerTests {
    /// An in-process server on `path` serving one watch `w`, with `configure` applied to its
    /// settings; runs `body`, then shuts the event loops and the pool down.
    private func withServer(
        at path: String,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (SocketServer, ServerContext, WatchFeed) async throws -> Void
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let watches = WatchFeeds()
        let feed = WatchFeed(watch: WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"]), epoch: EmbeddedConnection.epoch, historyLength: 1000)
        feed.finishRestoring()
        watches.replace(with: [feed])
        var configuration = ServerConfiguration(
            access: PeerAccess(daemonUserID: getuid(), allowedUserIDs: [], allowedGroups: []),
            heartbeatInterval: .seconds(60))
        configure(&configuration)
        let context = ServerContext(configuration: configuration, epoch: EmbeddedConnection.epoch, watches: watches, logger: Logger(label: "test"))
        let server = try await SocketServer.start(listener: .path(path, mode: 0o600), context: context, group: group, pool: pool)
        try await body(server, context, feed)
        try await pool.shutdownGracefully()
        try await group.shutdownGracefully()
    }

    @Test func aSubscriberThatStopsReadingIsCutOffWhileTheOthersKeepUp() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/s.sock"
        try await withServer(at: path, configure: { configuration in
            configuration.writeBufferLowWaterMark = 4 << 10
            configuration.writeBufferHighWaterMark = 16 << 10
            // The reader must not be taken for a slow consumer when the test process, beside
            // the rest of the run on two cores, does not get to read for a second or two.
            configuration.slowConsumerTimeout = .seconds(5)
            configuration.goodbyeGracePeriod = .milliseconds(100)
        }) { server, context, feed in
            var publisher = Publisher(feed: feed)
            publisher.publish(ids: Array(0..<200))
            let reader = try await MirrorSubscriber.connect(socketPath: path, watch: "w")
            let sleeper = try await ProtocolClient.connect(to: path)
            try await sleeper.hello()
            _ = try await sleeper.call { .subscribe(id: $0, watch: "w", since: nil) }

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
            #expect(try await reader.receiveUntil(timeout: .seconds(30)) { $0.changesets.count == 60 })
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
            let received = try await sleeper.receiveUntilClosed(timeout: .seconds(10))
            #expect(received.compactMap(\.changesetSeq).count < 60)
            #expect(feed.subscriberCount == 1)

            // The reader is still served.
            publisher.publish(ids: [1])
            #expect(try await reader.receiveUntil { $0.changesets.count == 61 })

            await server.shutdown()
            #expect(try await reader.client.receiveUntilClosed(timeout: .seconds(10)).last == .goodbye(reason: .shutdown))
            #expect(access(path, F_OK) != 0)
        }
    }

    /// A process spawned while a connection is open — by anything in the server's process — does
    /// not inherit the accepted socket, so when the server closes the connection the client sees
    /// the end at once rather than when that process exits.
    @Test func aChildProcessSpawnedBesideTheServerDoesNotHoldAConnectionOpen() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/s.sock"
        try await withServer(at: path) { server, _, _ in
            let client = try await ProtocolClient.connect(to: path)
            // The hello is the server's answer: its end of the connection is set up.
            _ = try await client.hello()
            // The child gets every descriptor not marked close-on-exec (only its standard streams
            // are replaced), as a child of the daemon would. Killed, and reaped off the pool, when
            // the value goes away.
            let child = try ChildProcess("/bin/sleep", ["30"], outputPath: "/dev/null", errorPath: "/dev/null")
            defer { withExtendedLifetime(child) {} }
            await server.shutdown()
            let started = ContinuousClock.now
            let messages = try await client.receiveUntilClosed(timeout: .seconds(10))
            #expect(messages.last == .goodbye(reason: .shutdown))
            // Well before the child's 30 s; an inherited socket keeps it open until then.
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }
}
