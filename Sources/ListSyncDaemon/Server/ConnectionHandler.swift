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
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = Result<ClientMessage, ProtocolError>
    typealias OutboundOut = ByteBuffer

    /// Where the connection is in its life.
    private enum State {
        /// Waiting for the client's `hello`.
        case handshaking
        /// Serving requests; the subscriptions in subscribe order.
        case open([Subscription])
        /// A final message was sent; the connection is closing and ignores everything.
        case closing
    }

    private var state = State.handshaking
    /// A `subscribe` to a watch whose saved state is still being read back (right after the
    /// daemon started): it is answered once the state is back, so that a cursor from before the
    /// restart resumes.
    private struct PendingSubscription {
        var id: RequestID
        var feed: WatchFeed
        var since: Cursor?
    }
    /// The subscribes waiting for their watch's restore, in the order they came.
    private var pendingSubscriptions: [PendingSubscription] = []
    /// Whether ``pump()`` is running, and whether something asked for another round meanwhile.
    private var isPumping = false
    private var pumpAgain = false
    /// Set while the channel is unwritable: the slow-consumer deadline.
    private var slowConsumerTimer: Scheduled<Void>?
    /// Set while a request line is unfinished: its deadline.
    private var unfinishedLineTimer: Scheduled<Void>?
    /// The snapshots last reported to the mailbox as being sent.
    private var notedSnapshots: [ObjectIdentifier] = []
    /// Why the daemon closed the connection, once it decided to; still `nil` when it ends, the
    /// client closed it.
    private var disconnectReason: DisconnectReason?
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
        self.endSubscriptions()
        self.state = .closing
        self.cancelTimers()
        self.mailbox.releaseBuffers()
        self.server.connections.remove(self.mailbox)
        self.server.metrics.noteDisconnect(self.disconnectReason ?? .closedByClient)
        self.server.connectionsDidChange()
        self.logger.debug("client disconnected")
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .success(let message):
            self.handle(message, context: context)
        case .failure(let error):
            self.answer(error, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tooLong = error as? LineFrameDecoder.LineTooLong {
            self.logger.notice("client sent a line longer than \(tooLong.limit) bytes; closing")
            self.answer(ProtocolError(.lineTooLong, "a line is longer than \(tooLong.limit) bytes"), context: context)
        } else {
            self.logger.debug("connection error; closing", metadata: ["error": "\(error)"])
            self.disconnectReason = self.disconnectReason ?? .error
            context.close(promise: nil)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        self.mailbox.noteWritability(context.channel.isWritable)
        if context.channel.isWritable {
            self.slowConsumerTimer?.cancel()
            self.slowConsumerTimer = nil
            self.pump()
        } else if self.slowConsumerTimer == nil, case .open = self.state {
            let timeout = TimeAmount(self.server.configuration.slowConsumerTimeout)
            self.slowConsumerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                self.logger.notice("client read too slowly for too long; closing")
                _ = self.sayGoodbye(.slowConsumer)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: - Requests

    private func handle(_ message: ClientMessage, context: ChannelHandlerContext) {
        switch self.state {
        case .closing:
            return
        case .handshaking:
            guard case .hello(let hello) = message else {
                self.answer(ProtocolError(.helloRequired, "the first message must be hello", requestID: message.id), context: context)
                return
            }
            guard let version = ProtocolVersion.negotiate(offered: hello.protocols) else {
                let supported = ProtocolVersion.supported.map(String.init).joined(separator: ", ")
                self.answer(ProtocolError(.unsupportedVersion, "this server speaks protocol \(supported)"), context: context)
                return
            }
            self.logger.debug("hello", metadata: ["client": "\(hello.client ?? "")", "protocol": "\(version)"])
            self.state = .open([])
            self.write(
                .hello(ServerHello(
                    protocolVersion: version, server: self.server.configuration.serverName, instance: self.server.epoch,
                    watches: self.server.watches.summaries)),
                context: context)
        case .open(var subscriptions):
            switch message {
            case .hello:
                self.answer(ProtocolError(.badRequest, "hello was already received"), context: context)
            case .list(let id):
                self.write(.reply(Reply(id: id, result: .list(self.server.watches.summaries))), context: context)
            case .ping(let id):
                self.write(.reply(Reply(id: id, result: .pong)), context: context)
            case .metrics(let id):
                let exposition = String(decoding: self.server.metricsExposition(), as: UTF8.self)
                self.write(.reply(Reply(id: id, result: .metrics(exposition: exposition))), context: context)
            case .unsubscribe(let id, let watch):
                guard self.server.watches.feed(named: watch) != nil || subscriptions.contains(where: { $0.feed.name == watch }) else {
                    self.answer(ProtocolError(.unknownWatch, "no watch named \"\(watch)\"", requestID: id), context: context)
                    return
                }
                if let index = subscriptions.firstIndex(where: { $0.feed.name == watch }) {
                    subscriptions.remove(at: index).feed.unsubscribe(self.mailbox)
                    self.state = .open(subscriptions)
                    self.noteSnapshotsBeingSent()
                    self.server.connectionsDidChange()
                }
                self.withdrawPendingSubscriptions { $0.feed.name == watch }
                self.write(.reply(Reply(id: id, result: .unsubscribed(watch: watch))), context: context)
            case .subscribe(let id, let watch, let since):
                guard let feed = self.server.watches.feed(named: watch) else {
                    self.answer(ProtocolError(.unknownWatch, "no watch named \"\(watch)\"", requestID: id), context: context)
                    return
                }
                // Subscribing again restarts the subscription.
                if let index = subscriptions.firstIndex(where: { $0.feed === feed }) {
                    subscriptions.remove(at: index)
                    self.state = .open(subscriptions)
                }
                self.withdrawPendingSubscriptions { $0.feed === feed }
                guard !feed.isRestoring else {
                    feed.wake(self.mailbox)
                    self.pendingSubscriptions.append(PendingSubscription(id: id, feed: feed, since: since))
                    // The restore may have ended between the check and the wake-up call.
                    if !feed.isRestoring { self.pump() }
                    return
                }
                self.subscribe(id: id, to: feed, since: since, context: context)
            }
        }
    }

    /// Starts a subscription to `feed` from `since` and answers `subscribe` `id`.
    private func subscribe(id: RequestID, to feed: WatchFeed, since: Cursor?, context: ChannelHandlerContext) {
        guard case .open(var subscriptions) = self.state else { return }
        let watch = feed.name
        let (start, version) = feed.subscribe(self.mailbox, since: since)
        subscriptions.append(
            Subscription(
                feed: feed, start: start, version: version, chunkSize: self.server.configuration.snapshotChunkSize,
                budget: self.server.budget))
        self.state = .open(subscriptions)
        let mode: ReplyResult.Subscription.Mode
        var reason: ReplyResult.Subscription.SnapshotReason?
        switch start {
        case .resume: mode = .resume
        case .snapshot(let why): (mode, reason) = (.snapshot, why)
        case .awaitingFirstVersion: mode = .snapshot
        }
        let cursor = version?.cursor
        self.logger.debug("subscribed", metadata: ["watch": "\(watch)", "mode": "\(mode.rawValue)", "since": "\(since?.description ?? "-")"])
        self.write(.reply(Reply(id: id, result: .subscribed(.init(watch: watch, mode: mode, cursor: cursor, reason: reason)))), context: context)
        self.server.connectionsDidChange()
        self.pump()
    }

    /// Withdraws the subscribes still waiting for their watch's restore that `isWithdrawn`
    /// picks (an `unsubscribe`, or a `subscribe` again, came first): each is answered with an
    /// `unsubscribed` reply carrying its own `id`, so a client waiting for it by `id` is not left
    /// waiting.
    private func withdrawPendingSubscriptions(where isWithdrawn: (PendingSubscription) -> Bool) {
        guard let context else { return }
        var waiting: [PendingSubscription] = []
        for pending in self.pendingSubscriptions {
            guard isWithdrawn(pending) else {
                waiting.append(pending)
                continue
            }
            pending.feed.unsubscribe(self.mailbox)
            self.write(.reply(Reply(id: pending.id, result: .unsubscribed(watch: pending.feed.name))), context: context)
        }
        self.pendingSubscriptions = waiting
    }

    /// Starts the subscriptions whose watch's restore has ended, in the order they were asked.
    private func startRestoredSubscriptions(context: ChannelHandlerContext) {
        guard self.pendingSubscriptions.contains(where: { !$0.feed.isRestoring }) else { return }
        var ready: [PendingSubscription] = []
        var waiting: [PendingSubscription] = []
        for pending in self.pendingSubscriptions {
            if pending.feed.isRestoring { waiting.append(pending) } else { ready.append(pending) }
        }
        self.pendingSubscriptions = waiting
        for pending in ready {
            self.subscribe(id: pending.id, to: pending.feed, since: pending.since, context: context)
        }
    }

    /// Sends `error`'s answer; closes the connection when its code says so.
    private func answer(_ error: ProtocolError, context: ChannelHandlerContext) {
        let line = ServerMessage.error(ErrorMessage(error)).encoded()
        if error.code.closesConnection {
            self.disconnectReason = self.disconnectReason ?? .error
            self.close(after: context.channel.allocator.buffer(bytes: line))
        } else {
            self.write(.error(ErrorMessage(error)), context: context)
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

    // MARK: - Unfinished lines

    /// A request line started and is not finished yet: it must be within the configured limit.
    func unfinishedLineStarted() {
        guard let context, self.unfinishedLineTimer == nil else { return }
        let limit = self.server.configuration.unfinishedLineTimeout
        self.unfinishedLineTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(limit)) {
            self.unfinishedLineTimer = nil
            guard let context = self.context else { return }
            self.logger.notice("client left a line unfinished for too long; closing")
            self.answer(ProtocolError(.lineTimeout, "a line was left unfinished for more than \(limit)"), context: context)
        }
    }

    /// Every line read so far is complete.
    func unfinishedLineEnded() {
        self.unfinishedLineTimer?.cancel()
        self.unfinishedLineTimer = nil
    }

    // MARK: - Streaming

    /// Writes what the subscriptions have to send while the channel is writable, one line per
    /// subscription in turn, up to the per-turn budget (then it yields the event loop and resumes).
    ///
    /// Not re-entrant: a write can make NIO report writability changes synchronously (the
    /// `BackPressureHandler` flushes when the channel turns unwritable, which may turn it writable
    /// again), and a nested pump would interleave with this one. A nested call asks for another
    /// round instead.
    func pump() {
        guard let context else { return }
        guard !self.isPumping else {
            self.pumpAgain = true
            return
        }
        self.isPumping = true
        defer { self.isPumping = false }
        self.startRestoredSubscriptions(context: context)
        let budget = self.server.configuration.writeBudgetPerTurn
        var written = 0
        repeat {
            self.pumpAgain = false
            written += self.writePendingLines(context: context, budget: budget - written)
        } while self.pumpAgain && written < budget
        context.flush()
        if written >= budget, context.channel.isWritable {
            context.eventLoop.assumeIsolated().execute { self.pump() }
        }
    }

    /// Writes lines while the channel is writable and the budget lasts; returns the bytes written.
    /// The state is updated before each write, so whatever a write triggers sees it current.
    private func writePendingLines(context: ChannelHandlerContext, budget: Int) -> Int {
        defer { self.noteSnapshotsBeingSent() }
        var written = 0
        var progressed = true
        while progressed, written < budget, context.channel.isWritable {
            progressed = false
            var index = 0
            while case .open(var subscriptions) = self.state, index < subscriptions.count {
                guard let (line, ends, isOwnCopy) = subscriptions[index].nextLine() else {
                    index += 1
                    continue
                }
                if ends {
                    subscriptions.remove(at: index).feed.unsubscribe(self.mailbox)
                    self.server.connectionsDidChange()
                } else {
                    index += 1
                }
                self.state = .open(subscriptions)
                written += line.readableBytes
                progressed = true
                guard isOwnCopy else {
                    context.write(Self.wrapOutboundOut(line), promise: nil)
                    continue
                }
                // A line read back from disk for this connection alone is its own buffer.
                let bytes = line.readableBytes
                let mailbox = self.mailbox
                mailbox.noteReplyBytes(bytes)
                context.write(Self.wrapOutboundOut(line)).whenComplete { _ in mailbox.noteReplyBytes(-bytes) }
            }
        }
        return written
    }

    /// Tells the mailbox which snapshots the subscriptions are sending, when that changed.
    private func noteSnapshotsBeingSent() {
        guard case .open(let subscriptions) = self.state else { return }
        let snapshots = subscriptions.compactMap(\.snapshot)
        guard snapshots.map(ObjectIdentifier.init) != self.notedSnapshots else { return }
        self.notedSnapshots = snapshots.map(ObjectIdentifier.init)
        self.mailbox.noteSnapshotsBeingSent(snapshots)
    }

    /// Writes a heartbeat unless the connection is not open or not keeping up.
    func sendHeartbeat(_ line: ByteBuffer) {
        guard let context, case .open = self.state, context.channel.isWritable else { return }
        context.writeAndFlush(Self.wrapOutboundOut(line), promise: nil)
    }

    // MARK: - Closing

    /// Sends `goodbye` and closes; the future completes once the channel is closed.
    func sayGoodbye(_ reason: GoodbyeReason) -> EventLoopFuture<Void> {
        guard let context else { return self.mailbox.eventLoop.makeSucceededVoidFuture() }
        let closed = context.channel.closeFuture
        if case .closing = self.state { return closed }
        self.disconnectReason = DisconnectReason(reason)
        self.close(after: context.channel.allocator.buffer(bytes: ServerMessage.goodbye(reason: reason).encoded()))
        return closed
    }

    /// Closes the connection of a peer no longer allowed, after `error` `not_permitted`: its
    /// subscriptions end, whatever they had not sent yet is dropped.
    func revoke() {
        guard let context else { return }
        if case .closing = self.state { return }
        self.logger.notice("the peer is no longer allowed to connect; closing")
        self.answer(ProtocolError(.notPermitted, "this user may no longer connect"), context: context)
    }

    /// Cuts the connection off for the client-buffer budget: `goodbye` `slow_consumer` goes out
    /// if it fits in the socket behind what is queued, and the connection closes at once, freeing
    /// what it holds.
    func cutOff() {
        guard let context else { return }
        if case .closing = self.state { return }
        self.logger.notice(
            "the client buffers are over budget; cutting off a slow connection",
            metadata: ["held": "\(self.mailbox.heldBytes)", "budget": "\(self.server.budget.limit)"])
        self.disconnectReason = .slowConsumer
        self.close(after: context.channel.allocator.buffer(bytes: ServerMessage.goodbye(reason: .slowConsumer).encoded()), waiting: false)
    }

    /// Writes `line`, then closes: once it is out or the grace period ends, whichever comes first;
    /// without `waiting`, at once (the line leaves if the socket takes it right away).
    private func close(after line: ByteBuffer, waiting: Bool = true) {
        guard let context else { return }
        self.endSubscriptions()
        self.state = .closing
        self.cancelTimers()
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

    private func cancelTimers() {
        self.slowConsumerTimer?.cancel()
        self.slowConsumerTimer = nil
        self.unfinishedLineTimer?.cancel()
        self.unfinishedLineTimer = nil
    }

    private func endSubscriptions() {
        for pending in self.pendingSubscriptions {
            pending.feed.unsubscribe(self.mailbox)
        }
        self.pendingSubscriptions = []
        guard case .open(let subscriptions) = self.state else { return }
        for subscription in subscriptions {
            subscription.feed.unsubscribe(self.mailbox)
        }
        self.state = .open([])
    }
}
