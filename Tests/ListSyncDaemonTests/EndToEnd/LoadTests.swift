import Glibc
import ListFormats
import ListSyncProtocol
import Testing
import UnixSockets
@testable import ListSyncDaemon

extension EndToEndTests.Load {
    /// A daemon watching `products.csv` of `rows` rows (version 0) as `products`, with `extra`
    /// top-level settings.
    static func started(rows: Int, extra: String = "") async throws -> (DaemonHarness, String, ReadOptions) {
        let harness = try DaemonHarness()
        let file = harness.path("products.csv")
        try FileOperations.write(Lists.products(rows: rows, version: 0), to: file)
        try harness.writeConfig(["name = \"products\"\npath = \"\(file)\"\n\(EndToEndTests.Subscribers.watch)"], extra: extra)
        try await harness.startDaemon()
        return (harness, file, ReadOptions(format: .csv(delimiter: .comma), key: ["sku"], sectionBy: "category"))
    }

    @Test func aBurstOfTwoThousandConnectionsIsServedInFull() async throws {
        let (harness, _, _) = try await Self.started(rows: 20)
        // Every client connects at once, each with a single non-blocking connect: a full listen
        // queue would refuse some with EAGAIN.
        var clients: [ProtocolClient] = []
        var refused: [String] = []
        for _ in 0..<2_000 {
            do {
                clients.append(try ProtocolClient(connectingOnceTo: harness.socketPath))
            } catch {
                refused.append("\(error)")
            }
        }
        #expect(refused.isEmpty, "\(refused.count) of 2000 refused, first: \(refused.first ?? "")")
        for client in clients {
            try client.sendRaw(ClientMessage.hello(ClientHello(client: "burst")).encoded())
            try client.sendRaw(ClientMessage.subscribe(id: RequestID(1), watch: "products", since: nil).encoded())
        }
        var digests: Set<ListDigest> = []
        for client in clients {
            let digest = try await client.receive(timeout: .seconds(30)) { message -> ListDigest? in
                guard case .snapshot(let chunk) = message, chunk.last else { return nil }
                return chunk.digest
            }
            digests.insert(digest)
        }
        #expect(digests.count == 1)
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aReaderThatNeverReadsAndHalfLineClientsStayWithinTheBudgetWhileASubscriberStaysCurrent() async throws {
        let budgetMiB = 16
        let (harness, file, options) = try await Self.started(rows: 30_000, extra: "client_buffer_budget_mib = \(budgetMiB)")
        let daemon = try #require(harness.daemon)
        let subscriber = try await harness.subscribe("products")
        #expect(try await subscriber.receiveUntilMirroring(file, options: options, timeout: .seconds(60)))

        // Subscribes to a snapshot larger than the socket buffers, and never reads: once the
        // next version is out, it alone holds that snapshot.
        let neverReads = try await harness.connect()
        try neverReads.send(.subscribe(id: RequestID(1), watch: "products", since: nil))
        try EndToEndTests.Subscribers.save(Lists.products(rows: 30_000, version: 1), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options, timeout: .seconds(60)))
        // Reads nothing while the others flood the daemon, but what it waits for is the current
        // snapshot, shared with any new subscriber: the budget does not cut it off.
        let slowOnCurrent = try await harness.connect()
        try slowOnCurrent.send(.subscribe(id: RequestID(1), watch: "products", since: nil))
        try daemon.resetPeakMemory()
        let baseline = try daemon.memoryKiB("VmRSS")

        // 200 clients each send 512 KiB of a line they never finish: 100 MiB, far over the budget.
        let start = Array(#"{"type":"ping","id":1,"pad":""#.utf8)
        let padding = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        var halfLines: [ProtocolClient] = []
        for _ in 0..<200 {
            let client = try await harness.connect()
            do {
                try client.sendRaw(start)
                for _ in 0..<8 { try client.sendRaw(padding) }
            } catch {
                // Cut off while sending: what the budget is for.
            }
            halfLines.append(client)
        }

        let growthKiB = try daemon.memoryKiB("VmHWM") - baseline
        // The budget, plus allocator slack and what one turn of reads brings before the cut.
        #expect(growthKiB <= (budgetMiB + 24) << 10, "peak RSS grew by \(growthKiB) KiB")

        // The flood cut off half-line clients, not the subscriber waiting for the current
        // snapshot: it is still there to be read. (Read now: once the next version is out, that
        // snapshot is stale, and a connection still holding it may be cut off like any other.)
        let current = try await slowOnCurrent.receive(timeout: .seconds(10)) { message -> Cursor? in
            guard case .snapshot(let chunk) = message, chunk.last else { return nil }
            return chunk.cursor
        }
        #expect(current.seq == 1)

        try EndToEndTests.Subscribers.save(Lists.products(rows: 30_000, version: 2), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options, timeout: .seconds(60)))
        #expect(subscriber.changesets.map(\.seq) == [1, 2])
        // The slowest go first: the reader that never reads, holding the old snapshot (its
        // goodbye did not fit behind it), and enough of the half-line clients, told why.
        _ = try await neverReads.receiveUntilClosed(timeout: .seconds(10))
        var cutOff = 0
        for client in halfLines {
            let messages = (try? await client.receiveUntilClosed(timeout: .milliseconds(100))) ?? []
            if messages.contains(.goodbye(reason: .slowConsumer)) { cutOff += 1 }
        }
        #expect(cutOff >= 200 - budgetMiB * 2)
        #expect(harness.log.contains("cutting off a slow connection"))
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aLineLeftUnfinishedPastTheLimitIsClosedWithAnError() async throws {
        // A second: a loaded machine may take a few hundred milliseconds to send the patient
        // client's second half, which must come within the limit.
        let (harness, _, _) = try await Self.started(rows: 10, extra: "partial_line_timeout_ms = 1000")
        let stalled = try await harness.connect()
        try stalled.sendRaw(Array(#"{"type":"ping","#.utf8))
        let closing = try await stalled.receiveUntilClosed(timeout: .seconds(10))
        #expect(closing.map(\.errorCode) == [.lineTimeout])

        // A line finished in time, then silence without a partial line: the connection stays.
        // The two halves go from a thread of their own, 100 ms apart by the clock: a task's sleep
        // on a loaded machine can wake past the limit (CI saw the pipe closed on the second half).
        let patient = try await harness.connect()
        let descriptor = patient.descriptor
        try await BlockingThread {
            try UnixStreamSocket.sendAll(Array(#"{"type":"pi"#.utf8), to: descriptor)
            usleep(100_000)
            try UnixStreamSocket.sendAll(Array(#"ng","id":1}"#.utf8) + [10], to: descriptor)
        }.value()
        #expect(try await patient.receive() == .reply(Reply(id: RequestID(1), result: .pong)))
        try await Task.sleep(for: .milliseconds(1_300))
        #expect(try await patient.call { .ping(id: $0) } == .pong)
        #expect(try await harness.stopDaemon() == 0)
    }
}
