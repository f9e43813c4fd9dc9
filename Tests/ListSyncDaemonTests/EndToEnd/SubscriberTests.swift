import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.Subscribers {
    static let watch = "key = [\"sku\"]\nsection_by = \"category\""

    /// A daemon watching `catalogue.csv` (version 0), named `products`.
    static func start() throws -> (DaemonHarness, String, ReadOptions) {
        let harness = try DaemonHarness()
        let file = harness.path("catalogue.csv")
        try FileOperations.write(Lists.catalogue(0), to: file)
        try harness.writeConfig(["name = \"products\"\npath = \"\(file)\"\n\(Self.watch)"])
        try harness.start()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"], sectionBy: "category")
        return (harness, file, options)
    }

    /// Saves `text` the way most programs do: a temporary file renamed over the watched one.
    static func save(_ text: String, to file: String) throws {
        try FileOperations.write(text, to: file + ".tmp")
        try FileOperations.rename(file + ".tmp", to: file)
    }

    @Test func tenConcurrentSubscribersReceiveTheSameOrderedSequence() throws {
        let (harness, file, options) = try Self.start()
        let subscribers = try (0..<10).map { _ in try harness.subscriber("products") }
        let edits = 6
        for edit in 1...edits {
            try Self.save(Lists.catalogue(edit), to: file)
            // Wait for the first subscriber only; the others read later, from their socket buffers.
            #expect(try subscribers[0].waitUntilMirrors(file, options: options))
        }
        let first = subscribers[0].changesets
        #expect(first.count == edits)
        #expect(first.map(\.seq) == Array(1...UInt64(edits)))
        for subscriber in subscribers.dropFirst() {
            #expect(try subscriber.waitUntil { $0.changesets.count == first.count })
            #expect(subscriber.changesets == first)
            #expect(subscriber.mirror == subscribers[0].mirror)
        }
        #expect(try harness.stop() == 0)
    }

    @Test func aResumingSubscriberGetsExactlyTheChangesetsItMissed() throws {
        let (harness, file, options) = try Self.start()
        let watcher = try harness.subscriber("products")
        var leaving: MirrorSubscriber? = try harness.subscriber("products")
        try Self.save(Lists.catalogue(1), to: file)
        #expect(try leaving?.waitUntilMirrors(file, options: options) == true)
        let cursor = try #require(leaving?.mirror?.cursor)
        let mirrorAtCursor = leaving?.mirror
        leaving = nil  // disconnects

        for edit in 2...4 {
            try Self.save(Lists.catalogue(edit), to: file)
            #expect(try watcher.waitUntilMirrors(file, options: options))
        }

        let client = try harness.client()
        guard case .subscribed(let reply) = try client.request({ .subscribe(id: $0, watch: "products", since: cursor) }) else {
            Issue.record("no subscribe reply")
            return
        }
        #expect(reply.mode == .resume)
        #expect(reply.cursor == watcher.mirror?.cursor)
        var mirror = try #require(mirrorAtCursor)
        var missed: [Cursor] = []
        // Exactly the missed changesets, in order, then the status — no snapshot.
        while true {
            let message = try client.next()
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
        #expect(try harness.stop() == 0)
    }

    @Test func aCursorFromAnotherRunOrTooFarAheadGetsASnapshot() throws {
        let (harness, file, options) = try Self.start()
        let hello = try ProtocolClient(socketPath: harness.socketPath).handshake()
        for since in [Cursor(epoch: Epoch(rawValue: hello.instance.rawValue &+ 1), seq: 0), Cursor(epoch: hello.instance, seq: 99)] {
            let subscriber = try harness.subscriber("products", since: since)
            #expect(subscriber.reply?.mode == .snapshot)
            #expect(try subscriber.waitUntilMirrors(file, options: options))
        }
        #expect(try harness.stop() == 0)
    }
}
