import ListSyncProtocol
import Logging
import NIOCore

/// What one client connection has agreed to and asked for, and what to do at each of its events:
/// the handshake, the subscriptions (and the subscribes waiting for their watch's restore), the
/// round in which the subscriptions take turns to write, the deadlines that must run, and the
/// connection's end.
///
/// Built as postgres-nio's `ConnectionStateMachine` is: a value type whose methods take an event,
/// update the state and return the ``Action``s to perform. ``ConnectionHandler`` performs them —
/// writes, closes, timers, flushes — and is otherwise only glue, so every decision here is testable
/// without a channel or a socket. The machine does no I/O and schedules nothing; it reads the
/// watches' feeds (which watches exist, what a subscription sends next) and registers its
/// `subscriber` with the feeds it subscribes to, which is in-memory bookkeeping of the feeds.
struct ConnectionStateMachine {
    /// Where the connection is in its life.
    enum State {
        /// Waiting for the client's `hello`.
        case handshaking
        /// Serving requests: the subscriptions in subscribe order, and the subscribes waiting for
        /// their watch's restore in the order they came.
        case open(subscriptions: [Subscription], pending: [PendingSubscription])
        /// A final message was sent; the connection is closing and ignores requests.
        case closing
    }

    /// A `subscribe` to a watch whose saved state is still being read back (right after the
    /// daemon started): it is answered once the state is back, so that a cursor from before the
    /// restart resumes.
    struct PendingSubscription {
        var id: RequestID
        var feed: WatchFeed
        var since: Cursor?
    }

    /// What the handler does for an event, in the order given.
    enum Action {
        /// Write and flush `message`, a reply of this connection's own: its bytes count against
        /// the client-buffer budget until written.
        case write(ServerMessage)
        /// Write `message`, then close the channel: once it is written or the goodbye grace
        /// period ends, whichever comes first; without `waiting`, at once (the line leaves only
        /// if the socket takes it right away).
        case close(after: ServerMessage, waiting: Bool)
        /// Write what the subscriptions have to send (``ConnectionHandler/pump()``).
        case pump
        /// The number of subscriptions changed: the status line counts them.
        case connectionsDidChange
        /// The subscriptions are now sending `snapshots`: tell the mailbox, for the budget.
        case noteSnapshotsBeingSent([EncodedSnapshot])
        /// Start the slow-consumer deadline; when it passes, call ``slowConsumerTimedOut()``.
        case startSlowConsumerTimer
        case cancelSlowConsumerTimer
        /// Start the unfinished-line deadline; when it passes, call
        /// ``unfinishedLineTimedOut(after:)``.
        case startUnfinishedLineTimer
        case cancelUnfinishedLineTimer
        /// Log `message`.
        case log(Logger.Level, Logger.Message, Logger.Metadata = [:])
        /// Answer `metrics` request `id` with the daemon's exposition, sampled now.
        case answerMetrics(RequestID)
        /// Compute `version`'s version 1 digest for a subscription to `feed` that waits for it
        /// (``WatchFeed/computeV1Digest(of:)``), off the event loop — O(*n*), it would hold up
        /// every connection of the loop — then call ``v1DigestComputed(_:)``.
        case computeV1Digest(WatchFeed, WatchVersion)
    }

    /// A line a subscription has to send, taken from the round.
    struct OutgoingLine {
        var line: ByteBuffer
        /// The subscription's own copy (a changeset read back from disk for it alone): it counts
        /// against the client-buffer budget until written.
        var isOwnCopy: Bool
        /// The subscription ended with this line (its watch was removed) and is gone.
        var endsSubscription: Bool
    }

    /// The deadlines running.
    struct Timers: OptionSet {
        let rawValue: UInt8
        /// The channel is unwritable: past ``ServerConfiguration/slowConsumerTimeout``, `goodbye`.
        static let slowConsumer = Timers(rawValue: 1 << 0)
        /// A request line is unfinished: past ``ServerConfiguration/unfinishedLineTimeout``,
        /// `error` `line_timeout`.
        static let unfinishedLine = Timers(rawValue: 1 << 1)
    }

    /// Whether the handler's write loop runs. A write can make NIO report a writability change
    /// synchronously, which asks for the loop again: a nested loop would interleave with the
    /// running one, so the running one takes another round instead.
    private enum Pumping {
        case idle
        case running
        /// Running, and asked for another round meanwhile.
        case runningAgain
    }

    private(set) var state = State.handshaking
    private(set) var timers: Timers = []
    private var pumping = Pumping.idle
    /// The subscription whose turn it is in the current round.
    private var turn = 0
    /// The snapshots last reported as being sent.
    private var notedSnapshots: [ObjectIdentifier] = []
    /// The versions whose version 1 digest is being computed for this connection.
    private var computingV1Digests: Set<ObjectIdentifier> = []
    /// Why the daemon closed the connection, once it decided to; still `nil` when the channel
    /// closes, the client closed it.
    private(set) var disconnectReason: DisconnectReason?

    /// Who the feeds wake for this connection: its mailbox.
    private let subscriber: any WatchFeedSubscriber
    private let watches: WatchFeeds
    private let serverName: String
    /// The daemon's instance, for `hello`.
    private let instance: Epoch
    private let snapshotChunkSize: Int
    private let budget: (any BufferBudget)?
    /// The digest of the protocol version agreed in `hello`.
    private var digestVersion = DigestVersion.v1

    /// A connection that waits for `hello`, serving the watches of `watches`, subscribing to their
    /// feeds as `subscriber`; its snapshots are cut at `snapshotChunkSize` and charged to `budget`.
    init(
        subscriber: any WatchFeedSubscriber, watches: WatchFeeds, serverName: String, instance: Epoch, snapshotChunkSize: Int,
        budget: (any BufferBudget)?
    ) {
        self.subscriber = subscriber
        self.watches = watches
        self.serverName = serverName
        self.instance = instance
        self.snapshotChunkSize = snapshotChunkSize
        self.budget = budget
    }

    /// Whether the connection serves requests (it said hello and is not closing).
    var isOpen: Bool {
        if case .open = self.state { return true }
        return false
    }

    /// Whether a final message went out and the connection is closing.
    var isClosing: Bool {
        if case .closing = self.state { return true }
        return false
    }

    // MARK: - Requests

    /// The client sent `message`.
    mutating func messageReceived(_ message: ClientMessage) -> [Action] {
        switch self.state {
        case .closing:
            return []
        case .handshaking:
            guard case .hello(let hello) = message else {
                return self.answer(ProtocolError(.helloRequired, "the first message must be hello", requestID: message.id))
            }
            guard let version = ProtocolVersion.negotiate(offered: hello.protocols) else {
                let supported = ProtocolVersion.supported.map(String.init).joined(separator: ", ")
                return self.answer(ProtocolError(.unsupportedVersion, "this server speaks protocol \(supported)"))
            }
            self.state = .open(subscriptions: [], pending: [])
            self.digestVersion = DigestVersion(protocol: version)
            return [
                .log(.debug, "hello", ["client": "\(hello.client ?? "")", "protocol": "\(version)"]),
                .write(.hello(ServerHello(protocolVersion: version, server: self.serverName, instance: self.instance, watches: self.watches.summaries))),
            ]
        case .open(let subscriptions, _):
            switch message {
            case .hello:
                return self.answer(ProtocolError(.badRequest, "hello was already received"))
            case .list(let id):
                return [.write(.reply(Reply(id: id, result: .list(self.watches.summaries))))]
            case .ping(let id):
                return [.write(.reply(Reply(id: id, result: .pong)))]
            case .metrics(let id):
                return [.answerMetrics(id)]
            case .unsubscribe(let id, let watch):
                guard self.watches.feed(named: watch) != nil || subscriptions.contains(where: { $0.feed.name == watch }) else {
                    return self.answer(ProtocolError(.unknownWatch, "no watch named \"\(watch)\"", requestID: id))
                }
                return self.unsubscribe(id: id, from: watch)
            case .subscribe(let id, let watch, let since):
                guard let feed = self.watches.feed(named: watch) else {
                    return self.answer(ProtocolError(.unknownWatch, "no watch named \"\(watch)\"", requestID: id))
                }
                return self.subscribe(id: id, to: feed, since: since)
            }
        }
    }

    /// A line from the client is no message (`error`, e.g. `bad_json`), or the client broke the
    /// framing: answered whatever the state.
    mutating func messageFailed(_ error: ProtocolError) -> [Action] {
        self.answer(error)
    }

    /// The client sent a line longer than `limit` bytes.
    mutating func lineTooLong(limit: Int) -> [Action] {
        [.log(.notice, "client sent a line longer than \(limit) bytes; closing")]
            + self.answer(ProtocolError(.lineTooLong, "a line is longer than \(limit) bytes"))
    }

    /// Ends the subscription to `watch` (if there is one) and withdraws the subscribes to it that
    /// wait for its restore, then answers `unsubscribe` `id`.
    private mutating func unsubscribe(id: RequestID, from watch: String) -> [Action] {
        guard case .open(var subscriptions, let pending) = self.state else { return [] }
        var actions: [Action] = []
        if let index = subscriptions.firstIndex(where: { $0.feed.name == watch }) {
            subscriptions.remove(at: index).feed.unsubscribe(self.subscriber)
            self.state = .open(subscriptions: subscriptions, pending: pending)
            actions += self.snapshotsBeingSent()
            actions.append(.connectionsDidChange)
        }
        actions += self.withdrawPendingSubscriptions { $0.feed.name == watch }
        actions.append(.write(.reply(Reply(id: id, result: .unsubscribed(watch: watch)))))
        return actions
    }

    /// Starts a subscription to `feed` from `since` (subscribing again restarts it), or — while
    /// the watch's state is being read back — makes it wait for the restore.
    private mutating func subscribe(id: RequestID, to feed: WatchFeed, since: Cursor?) -> [Action] {
        guard case .open(var subscriptions, let pending) = self.state else { return [] }
        if let index = subscriptions.firstIndex(where: { $0.feed === feed }) {
            subscriptions.remove(at: index)
            self.state = .open(subscriptions: subscriptions, pending: pending)
        }
        let withdrawn = self.withdrawPendingSubscriptions { $0.feed === feed }
        guard !feed.isRestoring else {
            feed.wake(self.subscriber)
            if case .open(let subscriptions, var pending) = self.state {
                pending.append(PendingSubscription(id: id, feed: feed, since: since))
                self.state = .open(subscriptions: subscriptions, pending: pending)
            }
            // The restore may have ended between the check and the wake-up call.
            return feed.isRestoring ? withdrawn : withdrawn + [.pump]
        }
        return withdrawn + self.startSubscription(id: id, to: feed, since: since)
    }

    /// Subscribes to `feed` from `since` and answers `subscribe` `id`.
    private mutating func startSubscription(id: RequestID, to feed: WatchFeed, since: Cursor?) -> [Action] {
        guard case .open(var subscriptions, let pending) = self.state else { return [] }
        let watch = feed.name
        let (start, version) = feed.subscribe(self.subscriber, since: since, digestVersion: self.digestVersion)
        subscriptions.append(
            Subscription(
                feed: feed, start: start, version: version, chunkSize: self.snapshotChunkSize, budget: self.budget,
                digestVersion: self.digestVersion))
        self.state = .open(subscriptions: subscriptions, pending: pending)
        let mode: ReplyResult.Subscription.Mode
        var reason: ReplyResult.Subscription.SnapshotReason?
        switch start {
        case .resume: mode = .resume
        case .snapshot(let why): (mode, reason) = (.snapshot, why)
        case .awaitingFirstVersion: mode = .snapshot
        }
        return [
            .log(.debug, "subscribed", ["watch": "\(watch)", "mode": "\(mode.rawValue)", "since": "\(since?.description ?? "-")"]),
            .write(.reply(Reply(id: id, result: .subscribed(.init(watch: watch, mode: mode, cursor: version?.cursor, reason: reason))))),
            .connectionsDidChange,
            .pump,
        ]
    }

    /// Withdraws the subscribes still waiting for their watch's restore that `isWithdrawn`
    /// picks (an `unsubscribe`, or a `subscribe` again, came first): each is answered with an
    /// `unsubscribed` reply carrying its own `id`, so a client waiting for it by `id` is not left
    /// waiting.
    private mutating func withdrawPendingSubscriptions(where isWithdrawn: (PendingSubscription) -> Bool) -> [Action] {
        guard case .open(let subscriptions, let pending) = self.state else { return [] }
        var actions: [Action] = []
        var waiting: [PendingSubscription] = []
        for subscribe in pending {
            guard isWithdrawn(subscribe) else {
                waiting.append(subscribe)
                continue
            }
            subscribe.feed.unsubscribe(self.subscriber)
            actions.append(.write(.reply(Reply(id: subscribe.id, result: .unsubscribed(watch: subscribe.feed.name)))))
        }
        self.state = .open(subscriptions: subscriptions, pending: waiting)
        return actions
    }

    /// Starts the subscriptions whose watch's restore has ended, in the order they were asked.
    mutating func startRestoredSubscriptions() -> [Action] {
        guard case .open(let subscriptions, let pending) = self.state, pending.contains(where: { !$0.feed.isRestoring }) else {
            return []
        }
        var ready: [PendingSubscription] = []
        var waiting: [PendingSubscription] = []
        for subscribe in pending {
            if subscribe.feed.isRestoring { waiting.append(subscribe) } else { ready.append(subscribe) }
        }
        self.state = .open(subscriptions: subscriptions, pending: waiting)
        return ready.flatMap { self.startSubscription(id: $0.id, to: $0.feed, since: $0.since) }
    }

    // MARK: - Writing

    /// Asks for the write loop; `true` when it should start now, `false` when it is running (it
    /// then takes another round).
    mutating func pumpRequested() -> Bool {
        switch self.pumping {
        case .idle:
            self.pumping = .running
            return true
        case .running, .runningAgain:
            self.pumping = .runningAgain
            return false
        }
    }

    /// A round of the write loop starts: whatever asked for one before is served by it.
    mutating func pumpRoundStarts() {
        self.pumping = .running
    }

    /// Whether something asked for another round of the write loop during this one.
    var pumpsAgain: Bool {
        if case .runningAgain = self.pumping { return true }
        return false
    }

    /// The write loop ended.
    mutating func pumpEnded() {
        self.pumping = .idle
    }

    /// A new turn of the subscriptions starts: each gives at most one line.
    mutating func turnStarts() {
        self.turn = 0
    }

    /// The next line of the current turn, from the next subscription that has one; `nil` when
    /// every subscription had its chance (or the connection is not open). A subscription that
    /// ends with its line is removed before the line is returned, so whatever writing it
    /// triggers sees the state current.
    mutating func nextLine() -> OutgoingLine? {
        while case .open(var subscriptions, let pending) = self.state, self.turn < subscriptions.count {
            guard let (line, ends, isOwnCopy) = subscriptions[self.turn].nextLine() else {
                // Nothing now, but the subscription may have moved on (to wait for a version 1 digest).
                self.state = .open(subscriptions: subscriptions, pending: pending)
                self.turn += 1
                continue
            }
            if ends {
                subscriptions.remove(at: self.turn).feed.unsubscribe(self.subscriber)
            } else {
                self.turn += 1
            }
            self.state = .open(subscriptions: subscriptions, pending: pending)
            return OutgoingLine(line: line, isOwnCopy: isOwnCopy, endsSubscription: ends)
        }
        return nil
    }

    /// The snapshots the subscriptions are sending, when that changed since last reported.
    mutating func snapshotsBeingSent() -> [Action] {
        guard case .open(let subscriptions, _) = self.state else { return [] }
        let snapshots = subscriptions.compactMap(\.snapshot)
        let identifiers = snapshots.map(ObjectIdentifier.init)
        guard identifiers != self.notedSnapshots else { return [] }
        self.notedSnapshots = identifiers
        return [.noteSnapshotsBeingSent(snapshots)]
    }

    /// The version 1 digests the subscriptions wait for and that are not being computed yet: one
    /// computation per version, however many subscriptions wait for it.
    mutating func v1DigestsToCompute() -> [Action] {
        guard case .open(let subscriptions, _) = self.state else { return [] }
        var actions: [Action] = []
        for subscription in subscriptions {
            guard let version = subscription.awaitedV1Digest, self.computingV1Digests.insert(ObjectIdentifier(version)).inserted else { continue }
            actions.append(.computeV1Digest(subscription.feed, version))
        }
        return actions
    }

    /// `version`'s version 1 digest is computed: the subscriptions waiting for it go on.
    mutating func v1DigestComputed(_ version: WatchVersion) -> [Action] {
        self.computingV1Digests.remove(ObjectIdentifier(version))
        return self.isOpen ? [.pump] : []
    }

    /// The channel became writable (write again) or unwritable (the slow-consumer deadline runs).
    mutating func writabilityChanged(isWritable: Bool) -> [Action] {
        if isWritable {
            let running = self.timers.remove(.slowConsumer) != nil
            return running ? [.cancelSlowConsumerTimer, .pump] : [.pump]
        }
        guard !self.timers.contains(.slowConsumer), self.isOpen else { return [] }
        self.timers.insert(.slowConsumer)
        return [.startSlowConsumerTimer]
    }

    /// The channel stayed unwritable past the slow-consumer timeout.
    mutating func slowConsumerTimedOut() -> [Action] {
        [.log(.notice, "client read too slowly for too long; closing")] + self.goodbye(.slowConsumer)
    }

    // MARK: - Unfinished lines

    /// A request line started and is not finished yet: it must be within the configured limit.
    mutating func unfinishedLineStarted() -> [Action] {
        guard !self.timers.contains(.unfinishedLine) else { return [] }
        self.timers.insert(.unfinishedLine)
        return [.startUnfinishedLineTimer]
    }

    /// Every line read so far is complete.
    mutating func unfinishedLineEnded() -> [Action] {
        guard self.timers.remove(.unfinishedLine) != nil else { return [] }
        return [.cancelUnfinishedLineTimer]
    }

    /// A request line stayed unfinished for more than `limit`.
    mutating func unfinishedLineTimedOut(after limit: Duration) -> [Action] {
        self.timers.remove(.unfinishedLine)
        return [.log(.notice, "client left a line unfinished for too long; closing")]
            + self.answer(ProtocolError(.lineTimeout, "a line was left unfinished for more than \(limit)"))
    }

    // MARK: - Closing

    /// The server says `goodbye` (`reason`) and closes, unless the connection is closing already.
    mutating func goodbye(_ reason: GoodbyeReason) -> [Action] {
        guard !self.isClosing else { return [] }
        return self.close(after: .goodbye(reason: reason), waiting: true)
    }

    /// The peer is no longer allowed: `error` `not_permitted`, and its subscriptions end with
    /// whatever they had not sent yet.
    mutating func revoked() -> [Action] {
        guard !self.isClosing else { return [] }
        return [.log(.notice, "the peer is no longer allowed to connect; closing")]
            + self.answer(ProtocolError(.notPermitted, "this user may no longer connect"))
    }

    /// The client-buffer budget cuts the connection off (it holds `heldBytes`; the budget is
    /// `limit`): `goodbye` `slow_consumer` if it fits in the socket, and close at once.
    mutating func cutOff(heldBytes: Int, limit: Int) -> [Action] {
        guard !self.isClosing else { return [] }
        return [.log(.notice, "the client buffers are over budget; cutting off a slow connection", ["held": "\(heldBytes)", "budget": "\(limit)"])]
            + self.close(after: .goodbye(reason: .slowConsumer), waiting: false)
    }

    /// The channel closed.
    mutating func channelInactive() -> [Action] {
        self.endSubscriptions()
        self.state = .closing
        return self.cancelTimers()
    }

    /// Sends `error`'s answer; closes the connection when its code says so.
    private mutating func answer(_ error: ProtocolError) -> [Action] {
        let message = ServerMessage.error(ErrorMessage(error))
        guard error.code.closesConnection else { return [.write(message)] }
        return self.close(after: message, waiting: true)
    }

    /// The connection failed (an I/O error): the handler closes it.
    mutating func connectionFailed() {
        self.disconnectReason = self.disconnectReason ?? .error
    }

    private mutating func close(after message: ServerMessage, waiting: Bool) -> [Action] {
        if case .goodbye(let reason) = message {
            self.disconnectReason = DisconnectReason(reason)
        } else {
            self.disconnectReason = self.disconnectReason ?? .error
        }
        self.endSubscriptions()
        self.state = .closing
        return self.cancelTimers() + [.close(after: message, waiting: waiting)]
    }

    private mutating func cancelTimers() -> [Action] {
        var actions: [Action] = []
        if self.timers.contains(.slowConsumer) { actions.append(.cancelSlowConsumerTimer) }
        if self.timers.contains(.unfinishedLine) { actions.append(.cancelUnfinishedLineTimer) }
        self.timers = []
        return actions
    }

    /// Unsubscribes from every feed, waiting subscribes included.
    private mutating func endSubscriptions() {
        guard case .open(let subscriptions, let pending) = self.state else { return }
        for subscribe in pending {
            subscribe.feed.unsubscribe(self.subscriber)
        }
        for subscription in subscriptions {
            subscription.feed.unsubscribe(self.subscriber)
        }
        self.state = .open(subscriptions: [], pending: [])
    }
}
