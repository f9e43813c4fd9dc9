import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.Subscribers {
    static let watch = "key = [\"sku\"]\nsection_by = \"category\""

    /// A daemon watching `catalogue.csv` (version 0), named `products`.
    static func started() async throws -> (DaemonHarness, String, ReadOptions) {
        let harness = try DaemonHarness()
        let file = harness.path("catalogue.csv")
        try FileOperations.write(Lists.catalogue(0), to: file)
        try harness.writeConfig(["name = \"products\"\npath = \"\(file)\"\n\(Self.watch)"])
        try await harness.startDaemon()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"], sectionBy: "category")
        return (harness, file, options)
    }

    /// Saves `text` the way most programs do: a temporary file renamed over the watched one.
    static func save(_ text: String, to file: String) throws {
        try FileOperations.write(text, to: file + ".tmp")
        try FileOperations.rename(file + ".tmp", to: file)
    }

    @Test func tenConcurrentSubscribersReceiveTheSameOrderedSequence() async throws {
        let (harness, file, options) = try await Self.started()
        var subscribers: [MirrorSubscriber] = []
        for _ in 0..<10 { subscribers.append(try await harness.subscribe("products")) }
        let edits = 6
        for edit in 1...edits {
            try Self.save(Lists.catalogue(edit), to: file)
            // Wait for the first subscriber only; the others read later, from their socket buffers.
            #expect(try await subscribers[0].receiveUntilMirroring(file, options: options))
        }
        let first = subscribers[0].changesets
        #expect(first.count == edits)
        #expect(first.map(\.seq) == Array(1...UInt64(edits)))
        for subscriber in subscribers.dropFirst() {
            #expect(try await subscriber.receiveUntil { $0.changesets.count == first.count })
            #expect(subscriber.changesets == first)
            #expect(subscriber.mirror == subscribers[0].mirror)
        }
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aResumingSubscriberGetsExactlyTheChangesetsItMissed() async throws {
        let (harness, file, options) = try await Self.started()
        let watcher = try await harness.subscribe("products")
        var leaving: MirrorSubscriber? = try await harness.subscribe("products")
        try Self.save(Lists.catalogue(1), to: file)
        #expect(try await leaving?.receiveUntilMirroring(file, options: options) == true)
        let cursor = try #require(leaving?.mirror?.cursor)
        let mirrorAtCursor = leaving?.mirror
        leaving = nil  // disconnects

        for edit in 2...4 {
            try Self.save(Lists.catalogue(edit), to: file)
            #expect(try await watcher.receiveUntilMirroring(file, options: options))
        }

        let client = try await harness.connect()
        guard case .subscribed(let reply) = try await client.call({ .subscribe(id: $0, watch: "products", since: cursor) }) else {
            Issue.record("no subscribe reply")
            return
        }
        #expect(reply.mode == .resume)
        #expect(reply.cursor == watcher.mirror?.cursor)
        var mirror = try #require(mirrorAtCursor)
        var missed: [Cursor] = []
        // Exactly the missed changesets, in order, then the status — no snapshot.
        while true {
            let message = try await client.receive()
            if case .changeset(let changeset) = message {
                try mirror.apply(changeset)
                missed.append(changeset.cursor)
            } else if case .status(let status) = message {
                #expect(status.state == .ok)
                break
            } else {
                Issue.record("unexpected \(message.type) while resuming")
            }
        }
        #expect(missed.map(\.seq) == [2, 3, 4])
        #expect(mirror == watcher.mirror)
        #expect(mirror.document == (try ListReader(options: options).read(contentsOfFile: file).document))
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aCursorFromAnotherRunOrTooFarAheadGetsASnapshot() async throws {
        let (harness, file, options) = try await Self.started()
        let hello = try await ProtocolClient.connect(to: harness.socketPath).hello()
        for since in [Cursor(epoch: Epoch(rawValue: hello.instance.rawValue &+ 1), seq: 0), Cursor(epoch: hello.instance, seq: 99)] {
            let subscriber = try await harness.subscribe("products", since: since)
            #expect(subscriber.reply?.mode == .snapshot)
            #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        }
        #expect(try await harness.stopDaemon() == 0)
    }
}
