import ListDiff
import ListFormats
import ListSyncProtocol
import Testing
import ListSyncTestSupport

@testable import ListSyncClient

/// The subscriber's logic, driven by hand: what it sends, emits and waits for at each step.
@Suite struct SubscriberStateMachineTests {
    let configuration = ClientConfiguration(
        socketPath: "/run/test.sock", clientName: "tests",
        reconnect: ReconnectPolicy(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(80), jitter: 0))
    let v0: ParsedList
    let v1: ParsedList
    let v2: ParsedList

    init() throws {
        self.v0 = try Versions.read(Versions.json([(1, "a", 0), (2, "a", 0), (3, "b", 0)]))
        self.v1 = try Versions.read(Versions.json([(2, "a", 1), (3, "b", 0), (4, "b", 0)]))
        self.v2 = try Versions.read(Versions.json([(3, "b", 0), (4, "b", 7)]))
    }

    var hello: ServerMessage {
        .hello(ServerHello(protocolVersion: 1, server: "listsyncd test", instance: Versions.epoch, watches: []))
    }

    func reply(_ request: Int, mode: ReplyResult.Subscription.Mode, seq: UInt64?) -> ServerMessage {
        .reply(Reply(id: RequestID(request), result: .subscribed(ReplyResult.Subscription(
            watch: Versions.watch, mode: mode, cursor: seq.map { Cursor(epoch: Versions.epoch, seq: $0) }))))
    }

    /// A machine that connected, subscribed (request 1) and applied the snapshot of `v0` at seq 3.
    func streamingMachine() throws -> SubscriberStateMachine {
        var machine = SubscriberStateMachine(mirror: MirroredList(watch: Versions.watch), configuration: self.configuration, random: { 0 })
        guard case .connect = machine.start() else { throw TestFailure("no connect") }
        #expect(sent(machine.connected()) == [.hello(ClientHello(protocols: [1, 2], client: "tests"))])
        #expect(sent(machine.received(self.hello)) == [.subscribe(id: RequestID(1), watch: Versions.watch, since: nil)])
        let subscribed = machine.received(self.reply(1, mode: .snapshot, seq: 3))
        #expect(emitted(subscribed).map(\.isCurrent) == [false])
        var updates: [MirrorUpdate] = []
        for chunk in try Versions.snapshot(self.v0, seq: 3) {
            updates += emitted(machine.received(.snapshot(chunk)))
        }
        #expect(updates.count == 1 && updates.allSatisfy(\.isCurrent))
        #expect(machine.mirror.document == self.v0.document)
        #expect(machine.phase == .streaming)
        return machine
    }

    /// With chunk delivery, each chunk is handed over as it arrives (before the mirror takes
    /// the snapshot, and without the records assembled so far), then the verified snapshot;
    /// without the list, the mirror keeps only the snapshot's cursor, and a chunk that does not
    /// verify resubscribes with nothing kept.
    @Test(arguments: [SnapshotDelivery.chunks, .chunksWithoutList]) func chunksAreHandedOverAsTheyArrive(delivery: SnapshotDelivery) throws {
        var configuration = self.configuration
        configuration.snapshotDelivery = delivery
        var machine = SubscriberStateMachine(mirror: MirroredList(watch: Versions.watch), configuration: configuration, random: { 0 })
        _ = machine.start()
        _ = machine.connected()
        _ = machine.received(self.hello)
        _ = machine.received(self.reply(1, mode: .snapshot, seq: 3))
        let chunks = try Versions.snapshot(self.v0, seq: 3)
        #expect(chunks.count > 2, "the snapshot spans several chunks")
        var updates: [MirrorUpdate] = []
        for chunk in chunks {
            updates += emitted(machine.received(.snapshot(chunk)))
        }
        var received: [SnapshotChunk] = []
        for update in updates.dropLast() {
            guard case .snapshotChunk(let chunk) = update.event else { throw TestFailure("not a chunk: \(update.event)") }
            received.append(chunk)
            #expect(!update.isCurrent && !update.mirror.hasList && update.mirror.pendingSnapshot == nil)
        }
        #expect(received == chunks)
        guard case .snapshot(let cursor) = updates.last?.event, cursor.seq == 3, updates.last?.isCurrent == true else {
            throw TestFailure("no verified snapshot after the chunks")
        }
        #expect(machine.mirror.cursor == cursor)
        #expect(machine.mirror.hasList == (delivery == .chunks))
        if delivery == .chunks { #expect(machine.mirror.document == self.v0.document) }

        // A snapshot whose digest does not match: its chunks came, then a resync, no snapshot.
        var bad = try Versions.snapshot(self.v1, seq: 4)
        bad[bad.count - 1].digest = ListDigest(of: self.v2)
        var after: [MirrorUpdate] = []
        for chunk in bad {
            after += emitted(machine.received(.snapshot(chunk)))
        }
        guard case .resyncing(let error) = after.last?.event, error.code == .digestMismatch else { throw TestFailure("no resync") }
        #expect(!after.contains { if case .snapshot = $0.event { true } else { false } })
        #expect(machine.mirror.cursor == cursor, "the mirror stays at its verified version")
    }

    @Test func handshakeSubscribeAndSnapshot() throws {
        var machine = try self.streamingMachine()
        let actions = machine.received(.changeset(try Versions.changeset(from: self.v0, to: self.v1, seq: 4)))
        guard case .changeset(let changeset) = emitted(actions).first?.event else { throw TestFailure("no changeset update") }
        #expect(changeset.cursor.seq == 4)
        #expect(machine.mirror.document == self.v1.document)
    }

    @Test func aDigestMismatchResubscribesForAFreshSnapshot() throws {
        var machine = try self.streamingMachine()
        var changeset = try Versions.changeset(from: self.v0, to: self.v1, seq: 4)
        changeset.digest = ListDigest(of: self.v2)
        let actions = machine.received(.changeset(changeset))
        #expect(sent(actions) == [.subscribe(id: RequestID(2), watch: Versions.watch, since: nil)])
        guard case .resyncing(let error) = emitted(actions).first?.event, error.code == .digestMismatch else { throw TestFailure("no resync update") }
        #expect(machine.phase == .resyncing)
        #expect(machine.mirror.document == self.v0.document, "the mirror stays at its verified version")
        // The old subscription's pushes are dropped until the reply.
        #expect(machine.received(.changeset(try Versions.changeset(from: self.v1, to: self.v2, seq: 5))).isEmpty)
        #expect(emitted(machine.received(self.reply(2, mode: .snapshot, seq: 5))).count == 1)
        for chunk in try Versions.snapshot(self.v2, seq: 5) { _ = machine.received(.snapshot(chunk)) }
        #expect(machine.mirror.document == self.v2.document && machine.isCurrent)
    }

    @Test func aMissedChangesetResumesFromTheCursor() throws {
        var machine = try self.streamingMachine()
        let actions = machine.received(.changeset(try Versions.changeset(from: self.v1, to: self.v2, seq: 5)))
        #expect(sent(actions) == [.subscribe(id: RequestID(2), watch: Versions.watch, since: Cursor(epoch: Versions.epoch, seq: 3))])
        _ = machine.received(self.reply(2, mode: .resume, seq: 5))
        _ = machine.received(.changeset(try Versions.changeset(from: self.v0, to: self.v1, seq: 4)))
        #expect(!machine.isCurrent)
        _ = machine.received(.changeset(try Versions.changeset(from: self.v1, to: self.v2, seq: 5)))
        #expect(machine.isCurrent && machine.mirror.document == self.v2.document)
    }

    /// The parts of changeset v0 → v1 (seq 4), cut at every entry, as a version 2 daemon sends them.
    func parts() throws -> [ChangesetPartMessage] {
        let line = ServerMessage.changeset(try Versions.changeset(from: self.v0, to: self.v1, seq: 4)).encoded()
        return try #require(ChangesetParts.split(line, targetSize: 1)).map { bytes throws in
            guard case .changesetPart(let part) = try MessageParser.serverMessage(ofLine: bytes.dropLast()) else { throw TestFailure("not a part") }
            return part
        }
    }

    /// A changeset in parts is applied, and handed over whole, once its last part arrived.
    @Test func changesetPartsAreAppliedWhole() throws {
        var machine = try self.streamingMachine()
        let parts = try self.parts()
        #expect(parts.count >= 3)
        for part in parts.dropLast() {
            #expect(machine.received(.changesetPart(part)).isEmpty)
            #expect(machine.mirror.document == self.v0.document)
        }
        let actions = machine.received(.changesetPart(try #require(parts.last)))
        guard case .changeset(let changeset) = emitted(actions).first?.event else { throw TestFailure("no changeset update") }
        #expect(changeset == (try Versions.changeset(from: self.v0, to: self.v1, seq: 4)))
        #expect(machine.mirror.document == self.v1.document)
    }

    /// A lost part is a gap: the subscriber resumes from its cursor, and applies the changeset
    /// when it comes again.
    @Test func aLostPartResumesFromTheCursor() throws {
        var machine = try self.streamingMachine()
        let parts = try self.parts()
        #expect(machine.received(.changesetPart(parts[0])).isEmpty)
        let actions = machine.received(.changesetPart(parts[2]))
        #expect(sent(actions) == [.subscribe(id: RequestID(2), watch: Versions.watch, since: Cursor(epoch: Versions.epoch, seq: 3))])
        guard case .resyncing(let error) = emitted(actions).first?.event, error.code == .partsOutOfOrder else { throw TestFailure("no resync update") }
        #expect(machine.mirror.document == self.v0.document)
        _ = machine.received(self.reply(2, mode: .resume, seq: 4))
        for part in parts { _ = machine.received(.changesetPart(part)) }
        #expect(machine.isCurrent && machine.mirror.document == self.v1.document)
    }

    @Test func aLostConnectionBacksOffAndResumesFromTheCursor() throws {
        var machine = try self.streamingMachine()
        let lost = machine.connectionFailed(reason: "the daemon closed the connection")
        guard case .disconnected(let error, let retryIn) = emitted(lost).first?.event, error.code == .connectionLost, case .wait(let delay) = lost.last else {
            throw TestFailure("no backoff after a lost connection: \(lost)")
        }
        #expect(retryIn == .milliseconds(10) && delay == retryIn)
        #expect(machine.phase == .backingOff(delay: .milliseconds(10)))
        // Two failed attempts double the wait each time. A connect that fails lost nothing: the
        // daemon cannot be reached (yet), and that is what the client is told.
        var delays: [Duration] = []
        for _ in 0..<2 {
            guard case .connect = machine.backoffElapsed().first else { throw TestFailure("no reconnect") }
            let failed = machine.connectionFailed(reason: "Connection refused")
            if case .wait(let delay) = failed.last { delays.append(delay) }
            guard case .disconnected(let error, _) = emitted(failed).first?.event else { throw TestFailure("no disconnection: \(failed)") }
            #expect(error == .unreachable(socketPath: "/run/test.sock", reason: "Connection refused"))
            #expect(error.description == "cannot reach listsyncd at /run/test.sock: Connection refused")
        }
        #expect(delays == [.milliseconds(20), .milliseconds(40)])
        _ = machine.backoffElapsed()
        _ = machine.connected()
        #expect(sent(machine.received(self.hello)) == [.subscribe(id: RequestID(2), watch: Versions.watch, since: Cursor(epoch: Versions.epoch, seq: 3))])
        #expect(machine.mirror.document == self.v0.document, "the mirror is kept across connections")
    }

    @Test func aNewServerHistoryGetsAFreshSnapshot() throws {
        var machine = try self.streamingMachine()
        _ = machine.connectionFailed(reason: "shutdown")
        _ = machine.backoffElapsed()
        _ = machine.connected()
        let restarted = Epoch(rawValue: 42)
        _ = machine.received(.hello(ServerHello(protocolVersion: 1, server: "listsyncd", instance: restarted, watches: [])))
        _ = machine.received(.reply(Reply(id: RequestID(2), result: .subscribed(ReplyResult.Subscription(
            watch: Versions.watch, mode: .snapshot, cursor: Cursor(epoch: restarted, seq: 0))))))
        #expect(!machine.isCurrent, "the mirror is from the old history")
        var encoder = SnapshotEncoder(
            watch: Versions.watch, cursor: Cursor(epoch: restarted, seq: 0), list: self.v2,
            digest: ListDigest(of: self.v2))
        while let line = encoder.nextChunk() {
            _ = machine.received(try #require(try MessageParser.serverMessage(ofLine: line.dropLast())))
        }
        #expect(machine.isCurrent && machine.mirror.cursor == Cursor(epoch: restarted, seq: 0))
        #expect(machine.mirror.document == self.v2.document)
    }

    @Test func anUnreachableDaemonEndsTheSubscriptionWhenThePolicySaysSo() {
        var configuration = self.configuration
        configuration.reconnect.initialAttempts = 2
        var machine = SubscriberStateMachine(mirror: MirroredList(watch: Versions.watch), configuration: configuration, random: { 0 })
        _ = machine.start()
        #expect(machine.connectionFailed(reason: "No such file or directory").last.isWait)
        _ = machine.backoffElapsed()
        guard case .finish(let error?)? = machine.connectionFailed(reason: "Connection refused").last, error.code == .unreachable else {
            Issue.record("the subscription did not end")
            return
        }
        #expect(error.socketPath == "/run/test.sock" && error.reason == "Connection refused")
        #expect(machine.phase == .closed)
    }

    @Test func anUnknownWatchOrARemovedOneEndsTheSubscription() throws {
        var machine = SubscriberStateMachine(mirror: MirroredList(watch: Versions.watch), configuration: self.configuration)
        _ = machine.start()
        _ = machine.connected()
        _ = machine.received(self.hello)
        let refused = machine.received(.error(ErrorMessage(id: RequestID(1), code: .unknownWatch, message: "no watch")))
        guard case .finish(.unknownWatch(Versions.watch))? = refused.last else { throw TestFailure("\(refused)") }

        var streaming = try self.streamingMachine()
        let removed = streaming.received(.status(StatusMessage(watch: Versions.watch, state: .removed)))
        guard case .finish(.watchRemoved(Versions.watch))? = removed.last else { throw TestFailure("\(removed)") }
        #expect(emitted(removed).first?.mirror.watchState == .removed)
    }

    @Test func dataThatNeverVerifiesEndsTheSubscription() throws {
        var machine = try self.streamingMachine()
        var changeset = try Versions.changeset(from: self.v0, to: self.v1, seq: 4)
        changeset.digest = ListDigest(of: self.v2)
        var request = 1
        for _ in 0..<self.configuration.maximumConsecutiveResyncs {
            #expect(!sent(machine.received(.changeset(changeset))).isEmpty)
            request += 1
            _ = machine.received(self.reply(request, mode: .resume, seq: 3))
        }
        guard case .finish(let error?)? = machine.received(.changeset(changeset)).last, error.code == .inconsistentData, error.mirrorError?.code == .digestMismatch else {
            throw TestFailure("the subscription did not give up")
        }
    }

    @Test func undecodableLinesResyncButUnknownTypesAreSkipped() throws {
        var machine = try self.streamingMachine()
        #expect(machine.receivedUndecodable(ProtocolError(.unknownType, "unknown message type \"future\"")).isEmpty)
        let actions = machine.receivedUndecodable(ProtocolError(.badRequest, "field \"stages\" is not a valid changeset"))
        #expect(sent(actions) == [.subscribe(id: RequestID(2), watch: Versions.watch, since: nil)])
    }
}

private func sent(_ actions: [SubscriberStateMachine.Action]) -> [ClientMessage] {
    actions.compactMap { action in
        if case .send(let message) = action { return message }
        return nil
    }
}

private func emitted(_ actions: [SubscriberStateMachine.Action]) -> [MirrorUpdate] {
    actions.compactMap { action in
        if case .emit(let update) = action { return update }
        return nil
    }
}

extension SubscriberStateMachine.Action? {
    fileprivate var isWait: Bool {
        if case .wait? = self { return true }
        return false
    }
}
