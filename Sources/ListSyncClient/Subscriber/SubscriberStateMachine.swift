import ListSyncProtocol

/// The logic of one subscription, without I/O: it is told what happened (connected, a message, a
/// lost connection, a wait that ended) and answers with the ``Action``s to take — so every path,
/// reconnections and resyncs included, can be tested without a socket.
///
/// ```
/// connecting ──connected──▶ handshaking ──reply──▶ streaming ◀──reply── resyncing
///     ▲                          │                   │   └──mismatch──────▲
///     └──── backing off ◀──failed/lost───────────────┘
///                 └──gave up──▶ closed ◀── unknown watch, removed, refused, inconsistent data
/// ```
///
/// The mirror lives beside the state, not in it: every phase keeps it, so a reconnection resumes
/// from its cursor.
struct SubscriberStateMachine {
    /// What to do next.
    enum Action: Sendable {
        /// Open a connection, then call ``connected()`` (or ``connectionFailed(reason:)``).
        case connect
        /// Send a message on the open connection.
        case send(ClientMessage)
        /// Hand an update to the consumer.
        case emit(MirrorUpdate)
        /// Close the connection; the machine has already moved on, so report nothing about it.
        case disconnect
        /// Wait, then call ``backoffElapsed()``.
        case wait(Duration)
        /// The subscription is over: with an error, or `nil` when it ended on request.
        case finish(ClientError?)
    }

    /// Where the subscription is. Each case carries what is valid in it.
    enum State {
        /// Opening a connection, after `failures` failed attempts in a row.
        case connecting(failures: Int)
        /// Connected: waiting for the server's `hello`, then for the reply to `subscribe`.
        case handshaking(Handshake, failures: Int)
        /// Subscribed: applying what the daemon pushes.
        case streaming(Stream)
        /// Resubscribed after data that did not verify, waiting for the reply to `request`; until
        /// then, snapshots and changesets belong to the old subscription and are dropped.
        case resyncing(Stream, request: RequestID)
        /// Waiting `delay` before the next attempt, after `failures` failed attempts in a row.
        case backingOff(failures: Int, delay: Duration)
        /// Over, with the error that ended it (`nil`: ended on request).
        case closed(ClientError?)
    }

    /// The steps of a handshake.
    enum Handshake {
        /// `hello` sent.
        case awaitingHello
        /// `subscribe` sent as `request`.
        case awaitingReply(request: RequestID)
    }

    /// A live subscription.
    struct Stream {
        /// The version the daemon had when the subscription started; `nil` when the watch had
        /// none yet. A snapshot of another epoch (the first version, or a new history after a
        /// reload) replaces it.
        var announced: Cursor?
        /// Why the daemon is about to close the connection, once it said `goodbye`.
        var goodbye: GoodbyeReason?
    }

    private(set) var state: State
    /// The mirror, kept across connections.
    private(set) var mirror: MirroredList
    /// How the next subscription starts: from the mirror's cursor, or for a fresh snapshot after
    /// data that did not verify.
    private var nextStart: MirrorError.Recovery = .resume
    /// Subscriptions the daemon accepted so far: after the first, failures count as lost
    /// connections rather than an unreachable daemon.
    private var subscriptions = 0
    /// Resubscriptions since the last verified snapshot or changeset.
    private var consecutiveResyncs = 0
    private var lastRequestID = 0
    /// The parts of a changeset received so far (protocol version 2), bounded by
    /// ``ClientConfiguration/maximumLineLength``: a partial changeset holds no more than one line may.
    private var parts: ChangesetPartAssembly

    let configuration: ClientConfiguration
    /// A number in `0..<1` for the jitter of each backoff.
    private let random: @Sendable () -> Double

    /// A subscription of `mirror`'s watch, resuming from its cursor if it has one.
    init(mirror: MirroredList, configuration: ClientConfiguration, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.mirror = mirror
        self.configuration = configuration
        self.random = random
        self.parts = ChangesetPartAssembly(maximumBytes: configuration.maximumLineLength)
        self.state = .connecting(failures: 0)
    }

    var watch: String { self.mirror.watch }

    /// The phase, as updates report it.
    var phase: SubscriberPhase {
        switch self.state {
        case .connecting(let failures): return .connecting(attempt: failures + 1)
        case .handshaking: return .handshaking
        case .streaming: return .streaming
        case .resyncing: return .resyncing
        case .backingOff(_, let delay): return .backingOff(delay: delay)
        case .closed: return .closed
        }
    }

    /// Whether the mirror has reached the version the daemon announced at subscribe time.
    ///
    /// The announced cursor's epoch is the watch's history (a watch added or re-identified by a
    /// configuration reload has its own, not the server's `instance`); a snapshot of another
    /// epoch received while streaming is the daemon's new history and is current.
    var isCurrent: Bool {
        guard case .streaming(let stream) = self.state, let cursor = self.mirror.cursor, let announced = stream.announced,
            cursor.epoch == announced.epoch
        else {
            return false
        }
        return cursor.seq >= announced.seq
    }

    // MARK: Events

    /// The first action: connect.
    func start() -> Action {
        .connect
    }

    /// A connection is open: say hello.
    mutating func connected() -> [Action] {
        guard case .connecting(let failures) = self.state else { return [] }
        self.parts.reset()
        self.state = .handshaking(.awaitingHello, failures: failures)
        return [.send(.hello(ClientHello(protocols: self.configuration.protocols, client: self.configuration.clientName)))]
    }

    /// Opening the connection failed, or an open one was lost: back off, or give up as the
    /// policy says.
    mutating func connectionFailed(reason: String) -> [Action] {
        let failures: Int
        // Whether a connection was open (a failed connect is no lost connection: the daemon is
        // not there, yet or any more).
        let wasOpen: Bool
        var reason = reason
        switch self.state {
        case .connecting(let before):
            failures = before + 1
            wasOpen = false
        case .handshaking(_, let before):
            failures = before + 1
            wasOpen = true
        case .streaming(let stream), .resyncing(let stream, _):
            failures = 1
            wasOpen = true
            if let goodbye = stream.goodbye {
                reason = goodbye == .shutdown ? "listsyncd shut down" : "listsyncd dropped this slow client"
            }
        case .backingOff, .closed:
            return []
        }
        self.mirror.discardPartialSnapshot()
        let connectedBefore = self.subscriptions > 0
        let error: ClientError =
            connectedBefore && wasOpen ? .connectionLost(reason: reason) : .unreachable(socketPath: self.configuration.socketPath, reason: reason)
        guard let delay = self.configuration.reconnect.delay(afterFailures: failures, connectedBefore: connectedBefore, random: self.random())
        else {
            return self.close(error)
        }
        self.state = .backingOff(failures: failures, delay: delay)
        return [.emit(self.update(.disconnected(error, retryIn: delay))), .wait(delay)]
    }

    /// The backoff is over: connect again.
    mutating func backoffElapsed() -> [Action] {
        guard case .backingOff(let failures, _) = self.state else { return [] }
        self.state = .connecting(failures: failures)
        return [.connect]
    }

    /// The consumer wants no more updates.
    mutating func cancel() -> [Action] {
        if case .closed = self.state { return [] }
        return self.close(.cancelled)
    }

    /// A line that could not be decoded: a pushed message of a type this client does not know is
    /// skipped (the protocol allows new ones); anything else means the stream can't be trusted.
    mutating func receivedUndecodable(_ error: ProtocolError) -> [Action] {
        if error.code == .unknownType { return [] }
        switch self.state {
        case .streaming(let stream), .resyncing(let stream, _):
            return self.resync(stream, after: .undecodable(error))
        case .handshaking:
            return [.disconnect] + self.connectionFailed(reason: "undecodable handshake: \(error)")
        case .connecting, .backingOff, .closed:
            return []
        }
    }

    /// A message from the daemon.
    mutating func received(_ message: ServerMessage) -> [Action] {
        // The daemon refuses this user, at connect or when a reload revoked its access; it
        // closes the connection, and trying again would be refused the same way.
        if case .error(let error) = message, error.code == .notPermitted {
            switch self.state {
            case .handshaking, .streaming, .resyncing: return [.disconnect] + self.close(.refused(error))
            case .connecting, .backingOff, .closed: return []
            }
        }
        switch self.state {
        case .handshaking(.awaitingHello, let failures):
            return self.handshake(message, failures: failures)
        case .handshaking(.awaitingReply(let request), _):
            return self.awaitReply(request, message: message)
        case .resyncing(_, let request):
            switch message {
            case .snapshot(let chunk) where chunk.watch == self.watch:
                return []
            case .changeset(let changeset) where changeset.watch == self.watch:
                return []
            case .changesetPart(let part) where part.watch == self.watch:
                return []
            default:
                return self.awaitReply(request, message: message)
            }
        case .streaming(let stream):
            return self.stream(stream, message: message)
        case .connecting, .backingOff, .closed:
            return []
        }
    }

    // MARK: Steps

    private mutating func handshake(_ message: ServerMessage, failures: Int) -> [Action] {
        switch message {
        case .hello(let hello):
            guard self.configuration.protocols.contains(hello.protocolVersion) else {
                return [.disconnect] + self.close(.protocolViolation("the daemon chose protocol version \(hello.protocolVersion), which was not offered"))
            }
            self.mirror.useDigestVersion(DigestVersion(protocol: hello.protocolVersion))
            let request = self.nextRequestID()
            self.state = .handshaking(.awaitingReply(request: request), failures: failures)
            return [.send(self.subscribe(request))]
        case .error(let error):
            return [.disconnect] + self.close(.refused(error))
        case .heartbeat, .goodbye:
            return []
        case .reply, .snapshot, .changeset, .changesetPart, .status:
            return [.disconnect] + self.connectionFailed(reason: "the daemon sent \(message.type) before hello")
        }
    }

    /// Waits for the reply to `subscribe` `request`; meanwhile statuses still apply.
    private mutating func awaitReply(_ request: RequestID, message: ServerMessage) -> [Action] {
        switch message {
        case .reply(let reply) where reply.id == request:
            guard case .subscribed(let subscription) = reply.result, subscription.watch == self.watch else {
                return [.disconnect] + self.connectionFailed(reason: "the reply to subscribe is not a subscription of \"\(self.watch)\"")
            }
            self.subscriptions += 1
            self.state = .streaming(Stream(announced: subscription.cursor))
            return [.emit(self.update(.subscribed(subscription)))]
        case .error(let error) where error.id == request:
            return [.disconnect] + self.close(error.code == .unknownWatch ? .unknownWatch(self.watch) : .refused(error))
        case .status(let status) where status.watch == self.watch:
            return self.applyStatus(status)
        default:
            return []
        }
    }

    private mutating func stream(_ stream: Stream, message: ServerMessage) -> [Action] {
        switch message {
        case .snapshot(let chunk) where chunk.watch == self.watch:
            do {
                let delivery = self.configuration.snapshotDelivery
                // With the mirror as it was before the chunk (not yet at the snapshot's cursor),
                // handed over once the chunk is known to belong where it is.
                let chunkUpdate = delivery == .assembled ? nil : self.update(.snapshotChunk(chunk))
                let complete = try self.mirror.apply(chunk, keepingList: delivery != .chunksWithoutList)
                let delivered: [Action] = chunkUpdate.map { [.emit($0)] } ?? []
                guard complete else { return delivered }
                if stream.announced?.epoch != chunk.cursor.epoch {
                    // The watch's first version, or a new history the daemon started since.
                    var stream = stream
                    stream.announced = chunk.cursor
                    self.state = .streaming(stream)
                }
                self.verified()
                return delivered + [.emit(self.update(.snapshot(cursor: chunk.cursor)))]
            } catch {
                return self.resync(stream, after: error)
            }
        case .changeset(let changeset) where changeset.watch == self.watch:
            guard self.parts.isEmpty else {
                self.parts.reset()
                return self.resync(
                    stream, after: .partsOutOfOrder(cursor: changeset.cursor, part: 0, reason: "a whole changeset came before the last part"))
            }
            return self.applyChangeset(changeset, stream: stream)
        case .changesetPart(let part) where part.watch == self.watch:
            do {
                guard let changeset = try self.parts.add(part) else { return [] }
                return self.applyChangeset(changeset, stream: stream)
            } catch {
                return self.resync(stream, after: .partsOutOfOrder(cursor: error.cursor, part: error.part, reason: error.reason))
            }
        case .status(let status) where status.watch == self.watch:
            return self.applyStatus(status)
        case .goodbye(let reason):
            var stream = stream
            stream.goodbye = reason
            self.state = .streaming(stream)
            return []
        case .hello:
            return [.disconnect] + self.connectionFailed(reason: "the daemon sent a second hello")
        case .snapshot, .changeset, .changesetPart, .status, .reply, .error, .heartbeat:
            // Another watch's, or an answer to nothing pending.
            return []
        }
    }

    /// Applies a whole changeset (one line, or its parts put together).
    private mutating func applyChangeset(_ changeset: ChangesetMessage, stream: Stream) -> [Action] {
        do {
            try self.mirror.apply(changeset)
            self.verified()
            return [.emit(self.update(.changeset(changeset)))]
        } catch {
            return self.resync(stream, after: error)
        }
    }

    private mutating func applyStatus(_ status: StatusMessage) -> [Action] {
        // The watch was checked by the caller.
        try? self.mirror.apply(status)
        let update = Action.emit(self.update(.status(status)))
        guard status.state == .removed else { return [update] }
        return [update, .disconnect] + self.close(.watchRemoved(self.watch))
    }

    /// Resubscribes after `error`, or gives up when too many resyncs came in a row.
    private mutating func resync(_ stream: Stream, after error: MirrorError) -> [Action] {
        self.consecutiveResyncs += 1
        guard self.consecutiveResyncs <= self.configuration.maximumConsecutiveResyncs else {
            return [.disconnect] + self.close(.inconsistentData(error))
        }
        self.mirror.discardPartialSnapshot()
        self.parts.reset()
        if error.recovery == .freshSnapshot {
            self.nextStart = .freshSnapshot
        }
        let request = self.nextRequestID()
        self.state = .resyncing(stream, request: request)
        return [.send(self.subscribe(request)), .emit(self.update(.resyncing(error)))]
    }

    /// A snapshot or changeset verified: the stream is sound again.
    private mutating func verified() {
        self.consecutiveResyncs = 0
        self.nextStart = .resume
    }

    private mutating func close(_ error: ClientError?) -> [Action] {
        self.mirror.discardPartialSnapshot()
        self.state = .closed(error)
        return [.finish(error)]
    }

    private func subscribe(_ request: RequestID) -> ClientMessage {
        .subscribe(id: request, watch: self.watch, since: self.nextStart == .resume ? self.mirror.cursor : nil)
    }

    private mutating func nextRequestID() -> RequestID {
        self.lastRequestID += 1
        return RequestID(self.lastRequestID)
    }

    /// An update with the mirror as it is now, without the snapshot it may be assembling: the
    /// consumer holding its copy while the next chunk arrives must not make the subscriber copy
    /// the records assembled so far.
    private func update(_ event: MirrorUpdate.Event) -> MirrorUpdate {
        var mirror = self.mirror
        mirror.discardPartialSnapshot()
        return MirrorUpdate(event: event, mirror: mirror, phase: self.phase, isCurrent: self.isCurrent)
    }
}
