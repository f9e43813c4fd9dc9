import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.Robustness {
    @Test func anInvalidWriteKeepsTheLastGoodVersionAndTheNextValidWriteRecovers() async throws {
        let (harness, file, options) = try await EndToEndTests.Subscribers.started()
        let subscriber = try await harness.subscribe("products")
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        let good = subscriber.mirror

        // An unterminated quote on line 3.
        try EndToEndTests.Subscribers.save("sku,name,price,category\nS1,a,1,fruit\nS2,\"b,2,veg\n", to: file)
        #expect(try await subscriber.receiveUntil { $0.status?.state == .invalid })
        let problem = try #require(subscriber.status?.error)
        #expect(problem.position?.line == 3)
        #expect(problem.position?.column == 4)
        #expect(subscriber.mirror == good)
        #expect(subscriber.changesets.isEmpty)

        // A late subscriber gets the last good version, and the invalid status.
        let late = try await harness.subscribe("products")
        #expect(try await late.receiveUntil { $0.mirror != nil && $0.status != nil })
        #expect(late.mirror == good)
        #expect(late.status?.state == .invalid)

        try EndToEndTests.Subscribers.save(Lists.catalogue(1), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        #expect(try await subscriber.receiveUntil { $0.status?.state == .ok })
        // One changeset, from the last good version (seq 0) to the new one.
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try await late.receiveUntilMirroring(file, options: options))
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func aDeletedFileIsMissingNotEmptiedAndItsRecreationIsDiffedAgainstTheLastVersion() async throws {
        let (harness, file, options) = try await EndToEndTests.Subscribers.started()
        let subscriber = try await harness.subscribe("products")
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        let before = subscriber.mirror

        try FileOperations.remove(file)
        #expect(try await subscriber.receiveUntil { $0.status?.state == .missing })
        #expect(subscriber.mirror == before)
        let list = try await harness.connect().call { .list(id: $0) }
        guard case .list(let watches) = list else { throw TestFailure(description: "not a list reply") }
        #expect(watches.first?.state == .missing)
        #expect(watches.first?.rows == before.map { $0.sections.reduce(0) { $0 + $1.records.count } })

        try FileOperations.write(Lists.catalogue(2), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))
        #expect(try await subscriber.receiveUntil { $0.status?.state == .ok })
        #expect(subscriber.changesets.map(\.seq) == [1])
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func misbehavingClientsDoNotAffectOtherSubscribers() async throws {
        let (harness, file, options) = try await EndToEndTests.Subscribers.started()
        let subscriber = try await harness.subscribe("products")
        #expect(try await subscriber.receiveUntilMirroring(file, options: options))

        // Says nothing at all, not even hello.
        let silent = try await ProtocolClient.connect(to: harness.socketPath)
        // Sends garbage: answered, and kept.
        let garbage = try await harness.connect()
        try garbage.sendRaw(Array("this is not json\n{\"type\":\"subscribe\",\"id\":1}\n\u{0}\u{ff}\n".utf8))
        var codes: [ProtocolErrorCode] = []
        for _ in 0..<3 {
            if case .error(let error) = try await garbage.receive() { codes.append(error.code) }
        }
        #expect(codes == [.badJSON, .badRequest, .badJSON])
        #expect(try await garbage.call { .ping(id: $0) } == .pong)
        // Sends a line longer than 1 MiB, slowly enough that it arrives in many reads.
        let flooder = try await harness.connect()
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        for _ in 0..<20 {
            do { try flooder.sendRaw(chunk) } catch { break }
        }
        let goodbye = try await flooder.receiveUntilClosed()
        #expect(goodbye.contains { if case .error(let error) = $0 { return error.code == .lineTooLong }; return false })

        // The subscriber is served as before.
        try EndToEndTests.Subscribers.save(Lists.catalogue(3), to: file)
        #expect(try await subscriber.receiveUntilMirroring(file, options: options, timeout: .seconds(5)))
        _ = silent
        #expect(try await harness.stopDaemon() == 0)
    }

    @Test func requestsGetPreciseErrors() async throws {
        let (harness, _, _) = try await EndToEndTests.Subscribers.started()
        let client = try await ProtocolClient.connect(to: harness.socketPath)
        try client.send(.list(id: RequestID(1)))
        guard case .error(let early) = try await client.receive() else { throw TestFailure(description: "no error") }
        #expect(early.code == .helloRequired)
        #expect(early.id == RequestID(1))
        try await client.hello()
        await #expect(throws: ProtocolError(.unknownWatch, #"no watch named "nope""#, requestID: RequestID(1))) {
            try await client.call { .subscribe(id: $0, watch: "nope", since: nil) }
        }
        try client.sendRaw(Array(#"{"type":"subscribe","id":7,"watch":"products","since":"yesterday"}"#.utf8) + [10])
        guard case .error(let cursor) = try await client.receive() else { throw TestFailure(description: "no error") }
        #expect(cursor.code == .badCursor)
        #expect(cursor.id == RequestID(7))
        try client.sendRaw(Array(#"{"type":"fly","id":"x"}"#.utf8) + [10])
        guard case .error(let unknown) = try await client.receive() else { throw TestFailure(description: "no error") }
        #expect(unknown.code == .unknownType)

        let old = try await ProtocolClient.connect(to: harness.socketPath)
        try old.send(.hello(ClientHello(protocols: [7, 8])))
        let closing = try await old.receiveUntilClosed()
        #expect(closing.count == 1)
        if case .error(let error) = closing.first { #expect(error.code == .unsupportedVersion) } else { Issue.record("no error") }
        #expect(try await harness.stopDaemon() == 0)
    }
}
