import ListSyncProtocol
import Logging
import NIOCore
import NIOPosix

/// The last step of a connection's pipeline: answers requests, keeps the connection's
/// subscriptions and writes what they produce as fast as the client reads.
///
/// Flow control: lines are written only while the channel is writable (its outbound buffer below
/// the high-water mark). A subscription never queues — it is a position in its watch's feed — so
/// a client that stops reading costs a bounded buffer; when it drains, it catches up from the
/// feed's history or a fresh snapshot. One that stays unwritable past the slow-consumer timeout
/// gets `goodbye` `slow_consumer` and is closed. Other connections are never held up: each runs
/// on its own event loop and shares the feeds' encoded changesets and snapshots.
///
/// Memory: replies not yet written, changeset lines read back from disk for this connection and
/// not yet written, and an unfinished request line count against the server's
/// ``ClientBufferBudget``, which cuts the slowest connections off when it is exceeded; a request
/// line left unfinished past the configured limit is answered `line_timeout` and closes.
///
/// The connection's state and every decision about it live in ``ConnectionStateMachine``: each
/// channel event, timer and call from the mailbox goes to the machine, and this handler performs
/// the actions it returns (writes, closes, timers, flushes), as postgres-nio's
/// `PostgresChannelHandler` drives its `ConnectionStateMachine`.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = Result<ClientMessage, ProtocolError>
    typealias OutboundOut = ByteBuffer

    /// The connection's state and every decision about it; this handler performs its actions.
    private var machine: ConnectionStateMachine
    /// Set while the channel is unwritable: the slow-consumer deadline.
    private var slowConsumerTimer: Scheduled<Void>?
    /// Set while a request line is unfinished: its deadline.
    private var unfinishedLineTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private let server: ServerContext
    private let peer: PeerAccess.Peer
    /// How the peer was admitted, to check it again if a reload changed the allowlist before
    /// the connection registered; `nil` when the server does not check peers (tests).
    private let admission: Admission?
    /// How feeds and the server reach this handler from other threads.
    let mailbox: ConnectionMailbox
    private var logger: Logger

    /// The allowlist a peer was admitted under.
    struct Admission {
        /// The list in force, which reloads replace.
        var accessList: AccessList
        /// Its generation when the connection was accepted.
        var generation: UInt64
        /// Where group lookups run.
        var pool: NIOThreadPool?
    }

    /// A handler for `peer`'s connection, reached through `mailbox`, admitted by `admission`.
    init(server: ServerContext, peer: PeerAccess.Peer, mailbox: ConnectionMailbox, admission: Admission? = nil) {
        self.server = server
        self.peer = peer
        self.admission = admission
        self.logger = server.logger
        self.logger[metadataKey: "peer"] = "\(peer)"
        self.mailbox = mailbox
        self.machine = ConnectionStateMachine(
            subscriber: mailbox, watches: server.watches, serverName: server.configuration.serverName, instance: server.epoch,
            snapshotChunkSize: server.configuration.snapshotChunkSize, budget: server.budget)
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.mailbox.attach(self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        self.mailbox.detach()
    }

    func channelActive(context: ChannelHandlerContext) {
        self.server.connections.add(self.mailbox)
        self.server.connectionsDidChange()
        self.logger.debug("client connected")
        context.fireChannelActive()
        // A reload between the accept and the registration above did not see this connection.
        if let admission = self.admission,
            let allowed = admission.accessList.recheck(self.peer, acceptedAt: admission.generation, pool: admission.pool, eventLoop: context.eventLoop)
        {
            allowed.assumeIsolated().whenComplete { result in
                switch result {
                case .success(true): return
                case .success(false): self.revoke()
                case .failure(let error):
                    self.logger.warning(
                        "cannot check the connection against the reloaded allowlist: the thread pool refused the work",
                        metadata: ["error": "\(error)"])
                }
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.run(self.machine.channelInactive(), context: context)
        self.mailbox.releaseBuffers()
        self.server.connections.remove(self.mailbox)
        self.server.metrics.noteDisconnect(self.machine.disconnectReason ?? .closedByClient)
        self.server.connectionsDidChange()
        self.logger.debug("client disconnected")
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .success(let message):
            self.run(self.machine.messageReceived(message), context: context)
        case .failure(let error):
            self.run(self.machine.messageFailed(error), context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tooLong = error as? LineFrameDecoder.LineTooLong {
            self.run(self.machine.lineTooLong(limit: tooLong.limit), context: context)
        } else if let failure = error as? IOError, failure.errnoCode == ECONNRESET || failure.errnoCode == EPIPE {
            // The client hung up with data unread (`AF_UNIX` reports that as a reset): a
            // hang-up, as a clean end of stream is, not a failure of the connection.
            self.logger.debug("connection reset by the client; closing")
            context.close(promise: nil)
        } else {
            self.logger.debug("connection error; closing", metadata: ["error": "\(error)"])
            self.machine.connectionFailed()
            context.close(promise: nil)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.mailbox.noteWritability(context.channel.isWritable)
        self.run(self.machine.writabilityChanged(isWritable: context.channel.isWritable), context: context)
        context.fireChannelWritabilityChanged()
    }

    // MARK: - Actions

    /// Performs `actions` in order.
    private func run(_ actions: [ConnectionStateMachine.Action], context: ChannelHandlerContext) {
        for action in actions {
            self.run(action, context: context)
        }
    }

    private func run(_ action: ConnectionStateMachine.Action, context: ChannelHandlerContext) {
        switch action {
        case .write(let message):
            self.write(message, context: context)
        case .close(let message, let waiting):
            self.close(after: context.channel.allocator.buffer(bytes: message.encoded()), waiting: waiting, context: context)
        case .pump:
            self.pump()
        case .connectionsDidChange:
            self.server.connectionsDidChange()
        case .noteSnapshotsBeingSent(let snapshots):
            self.mailbox.noteSnapshotsBeingSent(snapshots)
        case .startSlowConsumerTimer:
            self.slowConsumerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(self.server.configuration.slowConsumerTimeout)) {
                guard let context = self.context else { return }
                self.run(self.machine.slowConsumerTimedOut(), context: context)
            }
        case .cancelSlowConsumerTimer:
            self.slowConsumerTimer?.cancel()
            self.slowConsumerTimer = nil
        case .startUnfinishedLineTimer:
            let limit = self.server.configuration.unfinishedLineTimeout
            self.unfinishedLineTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limit)) {
                self.unfinishedLineTimer = nil
                guard let context = self.context else { return }
                self.run(self.machine.unfinishedLineTimedOut(after: limit), context: context)
            }
        case .cancelUnfinishedLineTimer:
            self.unfinishedLineTimer?.cancel()
            self.unfinishedLineTimer = nil
        case .log(let level, let message, let metadata):
            self.logger.log(level: level, message, metadata: metadata)
        case .answerMetrics(let id):
            // Sampled on the thread pool (see ``ServerContext/metricsExposition(on:)``); answered
            // if the connection is still there.
            self.server.metricsExposition(on: context.eventLoop).assumeIsolated().whenSuccess { bytes in
                guard let context = self.context else { return }
                self.write(.reply(Reply(id: id, result: .metrics(exposition: String(decoding: bytes, as: UTF8.self)))), context: context)
            }
        case .computeV1Digest(let feed, let version):
            // On the thread pool (see ``ServerContext/runOffLoop(on:_:)``); the subscriptions
            // waiting for it hold their place meanwhile, and the others write on.
            self.server.runOffLoop(on: context.eventLoop) { feed.computeV1Digest(of: version) }.assumeIsolated().whenComplete { result in
                if case .failure(let error) = result {
                    self.logger.notice(
                        "cannot compute a version 1 digest: the thread pool refused the work", metadata: ["watch": "\(feed.name)", "error": "\(error)"])
                    return
                }
                guard let context = self.context else { return }
                self.run(self.machine.v1DigestComputed(version), context: context)
            }
        }
    }

    /// Writes a reply of this connection's own; its bytes count against the budget until written.
    private func write(_ message: ServerMessage, context: ChannelHandlerContext) {
        let line = context.channel.allocator.buffer(bytes: message.encoded())
        let bytes = line.readableBytes
        let mailbox = self.mailbox
        mailbox.noteReplyBytes(bytes)
        context.writeAndFlush(Self.wrapOutboundOut(line)).whenComplete { _ in mailbox.noteReplyBytes(-bytes) }
    }

    /// Writes `line`, then closes: once it is out or the grace period ends, whichever comes first;
    /// without `waiting`, at once (the line leaves if the socket takes it right away).
    private func close(after line: ByteBuffer, waiting: Bool, context: ChannelHandlerContext) {
        let channel = context.channel
        guard waiting else {
            context.writeAndFlush(Self.wrapOutboundOut(line), promise: nil)
            channel.close(promise: nil)
            return
        }
        let grace = context.eventLoop.scheduleTask(in: TimeAmount(self.server.configuration.goodbyeGracePeriod)) {
            channel.close(promise: nil)
        }
        context.writeAndFlush(Self.wrapOutboundOut(line)).whenComplete { _ in
            grace.cancel()
            channel.close(promise: nil)
        }
    }

    // MARK: - Unfinished lines

    /// A request line started and is not finished yet: it must be within the configured limit.
    func unfinishedLineStarted() {
        guard let context else { return }
        self.run(self.machine.unfinishedLineStarted(), context: context)
    }

    /// Every line read so far is complete.
    func unfinishedLineEnded() {
        guard let context else { return }
        self.run(self.machine.unfinishedLineEnded(), context: context)
    }

    // MARK: - Streaming

    /// Writes what the subscriptions have to send while the channel is writable, one line per
    /// subscription in turn, up to the per-turn budget (then it yields the event loop and resumes).
    ///
    /// Not re-entrant: a nested call (a write made NIO report a writability change) asks the
    /// running loop for another round instead (``ConnectionStateMachine/pumpRequested()``).
    func pump() {
        guard let context, self.machine.pumpRequested() else { return }
        defer { self.machine.pumpEnded() }
        self.run(self.machine.startRestoredSubscriptions(), context: context)
        let budget = self.server.configuration.writeBudgetPerTurn
        var written = 0
        repeat {
            self.machine.pumpRoundStarts()
            written += self.writePendingLines(context: context, budget: budget - written)
        } while self.machine.pumpsAgain && written < budget
        context.flush()
        if written >= budget, context.channel.isWritable {
            context.eventLoop.assumeIsolated().execute { self.pump() }
        }
    }

    /// ``pump()`` for a feed's wake-up queued at `woken`; at debug level, logs how long the
    /// wake-up waited for the event loop and how long the writes took (the last steps of a
    /// version's way to its subscribers, after the tracker's timeline of it).
    func pump(wokenAt woken: ContinuousClock.Instant) {
        guard self.logger.logLevel <= .debug else { return self.pump() }
        let ran = ContinuousClock.now
        self.pump()
        let flushed = ContinuousClock.now
        self.logger.debug(
            "woken by a feed",
            metadata: [
                "waited_ms": "\(woken.duration(to: ran).loggedMilliseconds)",
                "written_ms": "\(ran.duration(to: flushed).loggedMilliseconds)",
            ])
    }

    /// Writes lines while the channel is writable and the budget lasts; returns the bytes written.
    /// The machine's state is updated before each write, so whatever a write triggers sees it current.
    private func writePendingLines(context: ChannelHandlerContext, budget: Int) -> Int {
        defer { self.run(self.machine.snapshotsBeingSent() + self.machine.v1DigestsToCompute(), context: context) }
        var written = 0
        var progressed = true
        while progressed, written < budget, context.channel.isWritable {
            progressed = false
            self.machine.turnStarts()
            while let outgoing = self.machine.nextLine() {
                if outgoing.endsSubscription {
                    self.server.connectionsDidChange()
                }
                let line = outgoing.line
                written += line.readableBytes
                progressed = true
                guard outgoing.isOwnCopy else {
                    context.write(Self.wrapOutboundOut(line), promise: nil)
                    continue
                }
                // A line copied for this connection alone (a changeset line or part) is its own buffer.
                let bytes = line.readableBytes
                let mailbox = self.mailbox
                mailbox.noteReplyBytes(bytes)
                context.write(Self.wrapOutboundOut(line)).whenComplete { _ in mailbox.noteReplyBytes(-bytes) }
            }
        }
        return written
    }

    /// Writes a heartbeat unless the connection is not open or not keeping up.
    func sendHeartbeat(_ line: ByteBuffer) {
        guard let context, self.machine.isOpen, context.channel.isWritable else { return }
        context.writeAndFlush(Self.wrapOutboundOut(line), promise: nil)
    }

    // MARK: - Closing

    /// Sends `goodbye` and closes; the future completes once the channel is closed.
    func sayGoodbye(_ reason: GoodbyeReason) -> EventLoopFuture<Void> {
        guard let context else { return self.mailbox.eventLoop.makeSucceededVoidFuture() }
        let closed = context.channel.closeFuture
        self.run(self.machine.goodbye(reason), context: context)
        return closed
    }

    /// Closes the connection of a peer no longer allowed, after `error` `not_permitted`: its
    /// subscriptions end, whatever they had not sent yet is dropped.
    func revoke() {
        guard let context else { return }
        self.run(self.machine.revoked(), context: context)
    }

    /// Cuts the connection off for the client-buffer budget: `goodbye` `slow_consumer` goes out
    /// if it fits in the socket behind what is queued, and the connection closes at once, freeing
    /// what it holds.
    func cutOff() {
        guard let context else { return }
        self.run(self.machine.cutOff(heldBytes: self.mailbox.heldBytes, limit: self.server.budget.limit), context: context)
    }
}
