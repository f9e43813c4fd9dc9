import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.Robustness {
    @Test func anInvalidWriteKeepsTheLastGoodVersionAndTheNextValidWriteRecovers() throws {
        let (harness, file, options) = try EndToEndTests.Subscribers.start()
        let subscriber = try harness.subscriber("products")
        #expect(try subscriber.waitUntilMirrors(file, options: options))
        let good = subscriber.mirror

        // An unterminated quote on line 3.
        try EndToEndTests.Subscribers.save("sku,name,price,category\nS1,a,1,fruit\nS2,\"b,2,veg\n", to: file)
        #expect(try subscriber.waitUntil { $0.status?.state == .invalid })
        let problem = try #require(subscriber.status?.error)
        #expect(problem.position?.line == 3)
        #expect(problem.position?.column == 4)
        #expect(subscriber.mirror == good)
        #expect(subscriber.changesets.isEmpty)

        // A late subscriber gets the last good version, and the invalid status.
        let late = try harness.subscriber("products")
        #expect(try late.waitUntil { $0.mirror != nil && $0.status != nil })
        #expect(late.mirror == good)
        #expect(late.status?.state == .invalid)

        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: file)
        #expect(try subscriber.waitUntilMirrors(file, options: options))
        #expect(try subscriber.waitUntil { $0.status?.state == .ok })
        // One changeset, from the last good version (seq 0) to the new one.
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try late.waitUntilMirrors(file, options: options))
        #expect(try harness.stop() == 0)
    }

    @Test func aDeletedFileIsMissingNotEmptiedAndItsRecreationIsDiffedAgainstTheLastVersion() throws {
        let (harness, file, options) = try EndToEndTests.Subscribers.start()
        let subscriber = try harness.subscriber("products")
        #expect(try subscriber.waitUntilMirrors(file, options: options))
        let before = subscriber.mirror

        try FileOperations.remove(file)
        #expect(try subscriber.waitUntil { $0.status?.state == .missing })
        #expect(subscriber.mirror == before)
        let list = try harness.client().request { .list(id: $0) }
        guard case .list(let watches) = list else { throw TestFailure(description: "not a list reply") }
        #expect(watches.first?.state == .missing)
        #expect(watches.first?.rows == before.map { $0.sections.reduce(0) { $0 + $1.records.count } })

        try FileOperations.write(Lists.catalogue(2), to: file)
        #expect(try subscriber.waitUntilMirrors(file, options: options))
        #expect(try subscriber.waitUntil { $0.status?.state == .ok })
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try harness.stop() == 0)
    }

    @Test func misbehavingClientsDoNotAffectOtherSubscribers() throws {
        let (harness, file, options) = try EndToEndTests.Subscribers.start()
        let subscriber = try harness.subscriber("products")
        #expect(try subscriber.waitUntilMirrors(file, options: options))

        // Says nothing at all, not even hello.
        let silent = try ProtocolClient(socketPath: harness.socketPath)
        // Sends garbage: answered, and kept.
        let garbage = try harness.client()
        try garbage.sendRaw(Array("this is not json\n{\"type\":\"subscribe\",\"id\":1}\n\u{0}\u{ff}\n".utf8))
        var codes: [ProtocolErrorCode] = []
        for _ in 0..<3 {
            if case .error(let error) = try garbage.next() { codes.append(error.code) }
        }
        #expect(codes == [.badJSON, .badRequest, .badJSON])
        #expect(try garbage.request { .ping(id: $0) } == .pong)
        // Sends a line longer than 1 MiB, slowly enough that it arrives in many reads.
        let flooder = try harness.client()
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        for _ in 0..<20 {
            do { try flooder.sendRaw(chunk) } catch { break }
        }
        let goodbye = try flooder.messagesUntilClosed()
        #expect(goodbye.contains { if case .error(let error) = $0 { return error.code == .lineTooLong }; return false })

        // The subscriber is served as before.
        try EndToEndTests.Subscribers.save(Lists.catalogue(3), to: file)
        #expect(try subscriber.waitUntilMirrors(file, options: options, timeout: .seconds(5)))
        _ = silent
        #expect(try harness.stop() == 0)
    }

    @Test func requestsGetPreciseErrors() throws {
        let (harness, _, _) = try EndToEndTests.Subscribers.start()
        let client = try ProtocolClient(socketPath: harness.socketPath)
        try client.send(.list(id: RequestID(1)))
        guard case .error(let early) = try client.next() else { throw TestFailure(description: "no error") }
        #expect(early.code == .helloRequired)
        #expect(early.id == RequestID(1))
        try client.handshake()
        #expect(throws: ProtocolError(.unknownWatch, #"no watch named "nope""#, requestID: RequestID(1))) {
            try client.request { .subscribe(id: $0, watch: "nope", since: nil) }
        }
        try client.sendRaw(Array(#"{"type":"subscribe","id":7,"watch":"products","since":"yesterday"}"#.utf8) + [10])
        guard case .error(let cursor) = try client.next() else { throw TestFailure(description: "no error") }
        #expect(cursor.code == .badCursor)
        #expect(cursor.id == RequestID(7))
        try client.sendRaw(Array(#"{"type":"fly","id":"x"}"#.utf8) + [10])
        guard case .error(let unknown) = try client.next() else { throw TestFailure(description: "no error") }
        #expect(unknown.code == .unknownType)

        let old = try ProtocolClient(socketPath: harness.socketPath)
        try old.send(.hello(ClientHello(protocols: [7, 8])))
        let closing = try old.messagesUntilClosed()
        #expect(closing.count == 1)
        if case .error(let error) = closing.first { #expect(error.code == .unsupportedVersion) } else { Issue.record("no error") }
        #expect(try harness.stop() == 0)
    }
}
