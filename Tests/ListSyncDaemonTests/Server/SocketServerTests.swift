import Dispatch
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
    /// settings, on `eventLoops` event loops and `pool` (a fresh one-thread pool by default);
    /// runs `body`, then shuts the event loops and the pool down.
    private func withServer(
        at path: String,
        eventLoops: Int = 2,
        pool: NIOThreadPool? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (SocketServer, ServerContext, WatchFeed) async throws -> Void
    ) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: eventLoops)
        let pool = pool ?? NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let watches = WatchFeeds()
        let feed = WatchFeed(watch: WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"]), epoch: EmbeddedConnection.epoch, historyLength: 1000)
        feed.finishRestoring()
        watches.replace(with: [feed])
        var configuration = ServerConfiguration(
            access: PeerAccess(daemonUserID: getuid(), allowedUserIDs: [], allowedGroups: []),
            heartbeatInterval: .seconds(60))
        configure(&configuration)
        let context = ServerContext(
            configuration: configuration, epoch: EmbeddedConnection.epoch, watches: watches, pool: pool, logger: Logger(label: "test"))
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
            let received = try await sleeper.receiveUntilClosed(timeout: .seconds(30))
            #expect(received.compactMap(\.changesetSeq).count < 60)
            #expect(feed.subscriberCount == 1)

            // The reader is still served.
            publisher.publish(ids: [1])
            #expect(try await reader.receiveUntil { $0.changesets.count == 61 })

            await server.shutdown()
            #expect(try await reader.client.receiveUntilClosed(timeout: .seconds(30)).last == .goodbye(reason: .shutdown))
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

    /// A version 1 client subscribing to a large list whose version 1 digest no one computed: the
    /// digest is computed on the thread pool, not on the event loop, so a version 2 client on the
    /// same loop is answered meanwhile; the version 1 client then gets its snapshot and what
    /// follows, in order, with version 1 digests.
    @Test func aPingIsAnsweredOnTheSameLoopWhileAVersion1DigestIsComputed() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/s.sock"
        // The pool's one thread is held until the test lets it go: until then the digest is
        // still to be computed, whatever the machine's load.
        let pool = NIOThreadPool(numberOfThreads: 1)
        let gate = DispatchSemaphore(value: 0)
        try await withServer(at: path, eventLoops: 1, pool: pool) { _, _, feed in
            pool.submit { _ in gate.wait() }
            defer { gate.signal() }
            var publisher = Publisher(feed: feed)
            publisher.publish(ids: Array(0..<50_000))
            let version = try #require(feed.currentVersion)
            let v2 = try await ProtocolClient.connect(to: path)
            #expect(try await v2.hello(protocols: [1, 2]).protocolVersion == 2)
            let v1 = try await MirrorSubscriber.connect(socketPath: path, watch: "w", protocols: [1])
            #expect(v1.reply?.mode == .snapshot)

            // Both connections are on the one event loop: the ping is answered while the digest waits.
            guard case .pong = try await v2.call({ .ping(id: $0) }) else { throw ProtocolClient.Failure(description: "no pong") }
            #expect(version.computedV1Digest == nil)
            // Nothing goes to the version 1 client before the digest: not even a first chunk.
            let early = (try? await v1.client.receive(timeout: .milliseconds(300))) != nil
            #expect(!early, "the snapshot went out before its digest was computed")

            gate.signal()
            // The mirror checks the snapshot's digest as the version 1 definition says.
            #expect(try await v1.receiveUntil(timeout: .seconds(60)) { $0.snapshots == 1 })
            #expect(v1.mirror?.digest == ListDigest(of: version.list, version: .v1))
            publisher.publish(ids: Array(1..<50_001))
            #expect(try await v1.receiveUntil(timeout: .seconds(60)) { $0.changesets.count == 1 })
            #expect(v1.changesets.map(\.seq) == [1] && v1.snapshots == 1)
            #expect(v1.changesetMessages.last?.digest == ListDigest(of: try #require(feed.currentVersion).list, version: .v1))
        }
    }
}
