import Foundation
import ListSyncTestSupport
import NATSTransport
import Synchronization
import Testing

@testable import ListSyncSink

/// Issue #21's fan-out goal: many ordered consumers of one watch's stream, in one process, each
/// receive every changeset once and in order, while the daemon serves a single subscriber, the
/// sink; NATS does the fan-out.
@Suite(
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: NATSServers.isInstalled, "nats-server is not installed (scripts/bootstrap installs it): the NATS tests are skipped"))
struct NATSFanOutTests {
    /// How many nats.c connections the consumers use, and how many consumers each holds: 200 in
    /// all, a connection each (spread over the cluster's nodes; 200 connections with their
    /// reader threads take about 3 s in a debug build).
    static let connections = 200
    static let consumersPerConnection = 1

    /// What the consumer threads and the test share: how many consumers are subscribed, and the
    /// stream sequence every consumer reads up to (0 until the test knows it).
    final class Progress: Sendable {
        let subscribed = Atomic<Int>(0)
        let lastSequence = Atomic<UInt64>(0)
    }

    /// One connection's consumers, each an ordered consumer of the watch's subject from the
    /// stream's first message, read until each has the message at `progress.lastSequence`
    /// (on a thread of its own: nats.c blocks). Every consumer's messages.
    static func consume(_ urls: [String], number: Int, _ progress: Progress) throws -> [[NATSMessage]] {
        let connection = try NATSConnection(.init(servers: urls, name: "fan-out-\(number)"))
        let subscriptions = try (0..<Self.consumersPerConnection).map { _ in try Self.subscribe(connection) }
        progress.subscribed.add(subscriptions.count, ordering: .releasing)
        defer { subscriptions.forEach { $0.close() } }
        var received = Array(repeating: [NATSMessage](), count: subscriptions.count)
        let deadline = ContinuousClock.now + .seconds(90)
        while true {
            let target = progress.lastSequence.load(ordering: .acquiring)
            var done = target > 0
            for (index, subscription) in subscriptions.enumerated() {
                // Until the target, or while it is unknown, what arrives within 100 ms.
                while target == 0 || (received[index].last?.streamSequence ?? 0) < target,
                    let message = try subscription.next(timeoutMilliseconds: 100)
                {
                    received[index].append(message)
                }
                if target == 0 || (received[index].last?.streamSequence ?? 0) < target { done = false }
            }
            if done { return received }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("connection \(number): consumers at \(received.map { $0.last?.streamSequence ?? 0 }), the stream at \(target)")
            }
        }
    }

    /// An ordered consumer of the watch's subject from the stream's first message. Creating it is
    /// a JetStream API request, which a cluster answering 200 of them at once (debug builds, two
    /// cores) may not answer within the request timeout: a timed-out request is made again, at
    /// most three times in all, as a client would; what the consumer then receives is checked in
    /// full.
    static func subscribe(_ connection: NATSConnection) throws -> NATSOrderedSubscription {
        let make = { () throws(NATSError) in
            try NATSOrderedSubscription(connection: connection, stream: NATSSinkTests.stream, subject: NATSSinkTests.subject, from: 1)
        }
        var made = Result(catching: make)
        var attempts = 1
        while case .failure(let error) = made, error.isTimeout, attempts < 3 {
            attempts += 1
            made = Result(catching: make)
        }
        return try made.get()
    }

    /// 200 ordered consumers follow one watch's stream while three versions are saved: each
    /// receives the snapshot and every changeset cursor once, in order (the stream's audit, each
    /// line applied and its digest verified), and the daemon has one subscriber all along.
    @Test func twoHundredOrderedConsumersReceiveEveryChangeset() async throws {
        let servers = try await NATSServers(count: 3)
        let harness = try await EndToEndHarness.running()
        let sink = try NATSSinkTests.startSink(harness, servers, number: 0)
        _ = try await NATSSinkTests.waitUntilPublished(harness, servers, "version 0")

        let progress = Progress()
        let urls = servers.nodes.map(\.url)
        let threads = (0..<Self.connections).map { number in BlockingThread { try Self.consume(urls, number: number, progress) } }
        let total = Self.connections * Self.consumersPerConnection
        try await eventually("\(total) consumers subscribe", timeout: .seconds(60)) {
            progress.subscribed.load(ordering: .acquiring) == total || threads.contains { $0.isFinished }
        }
        for version in 1...3 {
            try await harness.save(ProductVersions.csv(version))
            try await harness.waitForVersion(UInt64(version))
        }
        let final = try await NATSSinkTests.waitUntilPublished(harness, servers, "three versions")
        let last = try await NATSTransportTests.withConnection(servers) { connection in
            try connection.lastMessage(in: NATSSinkTests.stream, subject: NATSSinkTests.subject)?.streamSequence
        }
        progress.lastSequence.store(try #require(last), ordering: .releasing)

        var consumers: [[NATSMessage]] = []
        for thread in threads { consumers += try await thread.value() }
        #expect(consumers.count == total)
        for messages in consumers {
            try NATSSinkTests.audit(messages, endingAt: final)
            let changesets = messages.compactMap { JetStreamEnvelope(headers: $0.headers) }.filter { $0.kind == .changeset }.map(\.cursor.seq)
            #expect(changesets == [1, 2, 3], "every changeset once, in order")
        }

        // The daemon served one subscriber, the sink: the consumers are NATS's.
        let metrics = try await harness.run("metrics", [])
        #expect(metrics.status == 0, "\(metrics.error)")
        let series = metrics.output.split(separator: "\n").first { $0.hasPrefix(#"listsync_subscribers{watch="products"} "#) }
        #expect(series.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } == 1, "one subscriber: \(metrics.output)")
        sink.send(SIGKILL)
    }
}
