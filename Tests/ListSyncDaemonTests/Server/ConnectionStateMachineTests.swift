import ListSyncProtocol
import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import ListSyncDaemon

/// The connection's decisions, event by event, without a channel: what ``ConnectionStateMachine``
/// returns is what ``ConnectionHandler`` would do.
@Suite struct ConnectionStateMachineTests {
    /// An action as the tests compare it (the log lines' text aside).
    enum Step: Equatable {
        case write(ServerMessage)
        case close(after: ServerMessage, waiting: Bool)
        case pump
        case connectionsDidChange
        case noteSnapshotsBeingSent(count: Int)
        case startSlowConsumerTimer, cancelSlowConsumerTimer, startUnfinishedLineTimer, cancelUnfinishedLineTimer
        case log(Logger.Level)
        case answerMetrics(RequestID)
        case computeV1Digest(seq: UInt64)

        init(_ action: ConnectionStateMachine.Action) {
            switch action {
            case .write(let message): self = .write(message)
            case .close(let message, let waiting): self = .close(after: message, waiting: waiting)
            case .pump: self = .pump
            case .connectionsDidChange: self = .connectionsDidChange
            case .noteSnapshotsBeingSent(let snapshots): self = .noteSnapshotsBeingSent(count: snapshots.count)
            case .startSlowConsumerTimer: self = .startSlowConsumerTimer
            case .cancelSlowConsumerTimer: self = .cancelSlowConsumerTimer
            case .startUnfinishedLineTimer: self = .startUnfinishedLineTimer
            case .cancelUnfinishedLineTimer: self = .cancelUnfinishedLineTimer
            case .log(let level, _, _): self = .log(level)
            case .answerMetrics(let id): self = .answerMetrics(id)
            case .computeV1Digest(_, let version): self = .computeV1Digest(seq: version.seq)
            }
        }
    }

    /// A machine serving `watches`, as the connection's `mailbox` (on a loop nobody runs: the
    /// feeds' wake-ups go nowhere).
    struct Connection {
        static let epoch = EmbeddedConnection.epoch
        let watches = WatchFeeds()
        let mailbox = ConnectionMailbox(eventLoop: EmbeddedEventLoop(), budget: nil)
        var machine: ConnectionStateMachine

        init() {
            self.machine = ConnectionStateMachine(
                subscriber: self.mailbox, watches: self.watches, serverName: "test-server", instance: Self.epoch, snapshotChunkSize: 1 << 16,
                budget: nil)
        }

        /// A feed for watch `name` with a first version of rows `ids`, offered by the server;
        /// `restoring`: its saved state is still being read back.
        func addFeed(_ name: String, ids: [Int]? = [1], restoring: Bool = false) -> (WatchFeed, Publisher) {
            let feed = WatchFeed(
                watch: WatchConfiguration(name: name, path: "/\(name).csv", format: .csv, key: ["id"]), epoch: Self.epoch, historyLength: 100)
            if !restoring { feed.finishRestoring() }
            var publisher = Publisher(feed: feed)
            if let ids { publisher.publish(ids: ids) }
            self.watches.replace(with: self.watches.feeds + [feed])
            return (feed, publisher)
        }

        mutating func receive(_ message: ClientMessage) -> [Step] {
            self.machine.messageReceived(message).map(Step.init)
        }

        /// Says hello; what the machine answered.
        @discardableResult
        mutating func open() -> [Step] {
            self.receive(.hello(ClientHello()))
        }

        /// Every line the subscriptions have to send now, turn after turn.
        mutating func drain() -> [ConnectionStateMachine.OutgoingLine] {
            var lines: [ConnectionStateMachine.OutgoingLine] = []
            var progressed = true
            while progressed {
                progressed = false
                self.machine.turnStarts()
                while let line = self.machine.nextLine() {
                    lines.append(line)
                    progressed = true
                }
            }
            return lines
        }
    }

    /// An open connection subscribed to watch `w` and waiting for the restore of watch `r`.
    static func subscribedAndWaiting() -> (Connection, subscribed: WatchFeed, restoring: WatchFeed) {
        var connection = Connection()
        let (feed, _) = connection.addFeed("w")
        let (restoring, _) = connection.addFeed("r", restoring: true)
        connection.open()
        _ = connection.receive(.subscribe(id: RequestID(1), watch: "w", since: nil))
        _ = connection.receive(.subscribe(id: RequestID(2), watch: "r", since: nil))
        return (connection, feed, restoring)
    }

    static func subscribed(_ watch: String, id: Int, mode: ReplyResult.Subscription.Mode, cursor: Cursor?) -> Step {
        .write(.reply(Reply(id: RequestID(id), result: .subscribed(.init(watch: watch, mode: mode, cursor: cursor, reason: nil)))))
    }

    static func unsubscribed(_ watch: String, id: Int) -> Step {
        .write(.reply(Reply(id: RequestID(id), result: .unsubscribed(watch: watch))))
    }

    @Test func theFirstMessageMustBeHelloAndAnUnsupportedVersionCloses() {
        var connection = Connection()
        #expect(connection.receive(.ping(id: RequestID(1))) == [
            .write(.error(ErrorMessage(id: RequestID(1), code: .helloRequired, message: "the first message must be hello")))
        ])
        #expect(!connection.machine.isOpen && !connection.machine.isClosing)
        let refused = connection.receive(.hello(ClientHello(protocols: [99])))
        #expect(refused == [
            .close(after: .error(ErrorMessage(id: nil, code: .unsupportedVersion, message: "this server speaks protocol 1, 2")), waiting: true)
        ])
        #expect(connection.machine.isClosing)
        // Closing: everything else is ignored.
        #expect(connection.open() == [])
        #expect(connection.machine.goodbye(.shutdown).isEmpty)
    }

    @Test func helloOpensTheConnectionWithTheServersWatches() {
        var connection = Connection()
        _ = connection.addFeed("w")
        let answer = connection.open()
        #expect(answer.count == 2)
        #expect(answer.first == .log(.debug))
        guard case .write(.hello(let hello)) = answer.last else {
            Issue.record("hello was not answered with hello: \(answer)")
            return
        }
        #expect(hello.server == "test-server" && hello.instance == Connection.epoch && hello.watches.map(\.name) == ["w"])
        #expect(connection.machine.isOpen)
        #expect(connection.open() == [.write(.error(ErrorMessage(id: nil, code: .badRequest, message: "hello was already received")))])
        #expect(connection.receive(.ping(id: RequestID(2))) == [.write(.reply(Reply(id: RequestID(2), result: .pong)))])
        #expect(connection.machine.isOpen)
    }

    @Test func aSubscriptionIsAnsweredThenSendsItsSnapshotAndEndsWithItsWatch() throws {
        var connection = Connection()
        let (feed, publisher) = connection.addFeed("w")
        connection.open()
        #expect(connection.receive(.subscribe(id: RequestID(1), watch: "nope", since: nil)) == [
            .write(.error(ErrorMessage(id: RequestID(1), code: .unknownWatch, message: "no watch named \"nope\"")))
        ])
        let cursor = try #require(publisher.machine.state.lastGood?.cursor)
        #expect(connection.receive(.subscribe(id: RequestID(2), watch: "w", since: nil)) == [
            .log(.debug), Self.subscribed("w", id: 2, mode: .snapshot, cursor: cursor), .connectionsDidChange, .pump,
        ])
        #expect(feed.subscriberCount == 1)
        // The snapshot is being sent: the mailbox is told, once.
        #expect(connection.machine.snapshotsBeingSent().map(Step.init) == [.noteSnapshotsBeingSent(count: 1)])
        #expect(connection.machine.snapshotsBeingSent().isEmpty)
        let snapshot = connection.drain()
        #expect(!snapshot.isEmpty && snapshot.allSatisfy { !$0.isOwnCopy && !$0.endsSubscription })
        #expect(connection.machine.snapshotsBeingSent().map(Step.init) == [.noteSnapshotsBeingSent(count: 0)])
        // The watch leaves the configuration: its last line ends the subscription.
        feed.remove()
        let last = connection.drain()
        #expect(last.map(\.endsSubscription) == [true])
        #expect(feed.subscriberCount == 0)
        guard case .open(let subscriptions, _) = connection.machine.state else {
            Issue.record("the connection is not open: \(connection.machine.state)")
            return
        }
        #expect(subscriptions.isEmpty)
    }

    @Test func subscriptionsTakeTurnsOneLineEach() {
        var connection = Connection()
        var (_, first) = connection.addFeed("a")
        var (_, second) = connection.addFeed("b")
        connection.open()
        _ = connection.receive(.subscribe(id: RequestID(1), watch: "a", since: first.machine.state.lastGood?.cursor))
        _ = connection.receive(.subscribe(id: RequestID(2), watch: "b", since: second.machine.state.lastGood?.cursor))
        // Both resumed at the current version: each sends its watch's status, nothing else.
        #expect(connection.drain().map { String(buffer: $0.line).contains("\"type\":\"status\"") } == [true, true])
        for n in 2...4 {
            first.publish(ids: Array(1...n))
            second.publish(ids: Array(1...n))
        }
        // One turn: one line from each subscription, in subscribe order.
        connection.machine.turnStarts()
        var turn: [ByteBuffer] = []
        while let line = connection.machine.nextLine() { turn.append(line.line) }
        #expect(turn.count == 2)
        let watches = turn.map { String(buffer: $0).contains("\"watch\":\"a\"") ? "a" : "b" }
        #expect(watches == ["a", "b"])
        #expect(connection.drain().count == 4)
    }

    @Test func aSubscribeWaitsForTheRestoreAndAnUnsubscribeWithdrawsIt() throws {
        var connection = Connection()
        let (feed, _) = connection.addFeed("w", restoring: true)
        connection.open()
        #expect(connection.receive(.subscribe(id: RequestID(1), watch: "w", since: nil)) == [], "answered before the restore")
        #expect(connection.machine.startRestoredSubscriptions().isEmpty)
        // Asked again: the first one is withdrawn under its own id.
        #expect(connection.receive(.subscribe(id: RequestID(2), watch: "w", since: nil)) == [Self.unsubscribed("w", id: 1)])
        #expect(connection.receive(.unsubscribe(id: RequestID(3), watch: "w")) == [Self.unsubscribed("w", id: 2), Self.unsubscribed("w", id: 3)])
        #expect(feed.subscriberCount == 0)
        // Once the restore ends, a waiting subscribe starts.
        _ = connection.receive(.subscribe(id: RequestID(4), watch: "w", since: nil))
        feed.finishRestoring()
        let started = connection.machine.startRestoredSubscriptions().map(Step.init)
        #expect(started.count == 4 && started[1] == Self.subscribed("w", id: 4, mode: .snapshot, cursor: feed.currentVersion?.cursor))
        #expect(feed.subscriberCount == 1)
        #expect(connection.machine.startRestoredSubscriptions().isEmpty)
    }

    @Test func anUnwritableChannelRunsOneSlowConsumerDeadlineThatSaysGoodbye() {
        var connection = Connection()
        let (feed, _) = connection.addFeed("w")
        // Not before hello.
        #expect(connection.machine.writabilityChanged(isWritable: false).isEmpty)
        #expect(connection.machine.writabilityChanged(isWritable: true).map(Step.init) == [.pump])
        connection.open()
        _ = connection.receive(.subscribe(id: RequestID(1), watch: "w", since: nil))
        #expect(connection.machine.writabilityChanged(isWritable: false).map(Step.init) == [.startSlowConsumerTimer])
        #expect(connection.machine.writabilityChanged(isWritable: false).isEmpty, "a second deadline")
        #expect(connection.machine.writabilityChanged(isWritable: true).map(Step.init) == [.cancelSlowConsumerTimer, .pump])
        #expect(connection.machine.writabilityChanged(isWritable: false).map(Step.init) == [.startSlowConsumerTimer])
        #expect(connection.machine.slowConsumerTimedOut().map(Step.init) == [
            .log(.notice), .cancelSlowConsumerTimer, .close(after: .goodbye(reason: .slowConsumer), waiting: true),
        ])
        #expect(connection.machine.isClosing && connection.machine.timers.isEmpty)
        #expect(feed.subscriberCount == 0, "the subscription did not end")
        #expect(connection.drain().isEmpty)
    }

    @Test func anUnfinishedLineRunsOneDeadlineThatAnswersLineTimeout() {
        var connection = Connection()
        #expect(connection.machine.unfinishedLineStarted().map(Step.init) == [.startUnfinishedLineTimer])
        #expect(connection.machine.unfinishedLineStarted().isEmpty)
        #expect(connection.machine.unfinishedLineEnded().map(Step.init) == [.cancelUnfinishedLineTimer])
        #expect(connection.machine.unfinishedLineEnded().isEmpty)
        _ = connection.machine.unfinishedLineStarted()
        #expect(connection.machine.unfinishedLineTimedOut(after: .seconds(5)).map(Step.init) == [
            .log(.notice),
            .close(after: .error(ErrorMessage(id: nil, code: .lineTimeout, message: "a line was left unfinished for more than 5.0 seconds")), waiting: true),
        ])
        #expect(connection.machine.isClosing && connection.machine.timers.isEmpty)
    }

    @Test func aCutOffClosesAtOnceAndNothingFollowsAClose() {
        var connection = Connection()
        let (feed, _) = connection.addFeed("w")
        connection.open()
        _ = connection.receive(.subscribe(id: RequestID(1), watch: "w", since: nil))
        _ = connection.machine.unfinishedLineStarted()
        #expect(connection.machine.cutOff(heldBytes: 10, limit: 5).map(Step.init) == [
            .log(.notice), .cancelUnfinishedLineTimer, .close(after: .goodbye(reason: .slowConsumer), waiting: false),
        ])
        #expect(feed.subscriberCount == 0)
        #expect(connection.machine.cutOff(heldBytes: 10, limit: 5).isEmpty)
        #expect(connection.machine.revoked().isEmpty)
        #expect(connection.machine.goodbye(.shutdown).isEmpty)
        #expect(connection.receive(.ping(id: RequestID(2))).isEmpty)
        #expect(connection.machine.writabilityChanged(isWritable: false).isEmpty)
    }

    @Test func aRevokedPeerGetsNotPermittedAndItsSubscriptionsEnd() {
        var (connection, feed, restoring) = Self.subscribedAndWaiting()
        #expect(feed.subscriberCount == 1 && restoring.subscriberCount == 1)
        #expect(connection.machine.revoked().map(Step.init) == [
            .log(.notice), .close(after: .error(ErrorMessage(id: nil, code: .notPermitted, message: "this user may no longer connect")), waiting: true),
        ])
        #expect(feed.subscriberCount == 0 && restoring.subscriberCount == 0)
        #expect(connection.machine.isClosing)
    }

    @Test func aClosedChannelEndsTheSubscriptionsAndCancelsTheDeadlines() {
        var (connection, feed, restoring) = Self.subscribedAndWaiting()
        _ = connection.machine.writabilityChanged(isWritable: false)
        _ = connection.machine.unfinishedLineStarted()
        #expect(connection.machine.channelInactive().map(Step.init) == [.cancelSlowConsumerTimer, .cancelUnfinishedLineTimer])
        #expect(feed.subscriberCount == 0 && restoring.subscriberCount == 0)
        #expect(connection.machine.isClosing && connection.machine.timers.isEmpty)
        #expect(connection.drain().isEmpty)
    }

    @Test func aLineThatFailsToDecodeIsAnsweredAndATooLongLineCloses() {
        var connection = Connection()
        connection.open()
        let badJSON = ProtocolError(.badJSON, "not JSON")
        #expect(connection.machine.messageFailed(badJSON).map(Step.init) == [.write(.error(ErrorMessage(badJSON)))])
        #expect(connection.machine.isOpen)
        #expect(connection.machine.lineTooLong(limit: 8).map(Step.init) == [
            .log(.notice), .close(after: .error(ErrorMessage(id: nil, code: .lineTooLong, message: "a line is longer than 8 bytes")), waiting: true),
        ])
        #expect(connection.machine.isClosing)
    }

    /// `metrics` is answered by the handler (it samples the daemon's gauges); the reason the
    /// daemon closed a connection is kept for the disconnect counter, the first one winning, and
    /// a connection the daemon never closed has none (the client closed it).
    @Test func metricsIsAskedOfTheHandlerAndEachCloseKeepsItsReason() {
        var connection = Connection()
        connection.open()
        #expect(connection.receive(.metrics(id: RequestID(7))) == [.answerMetrics(RequestID(7))])
        _ = connection.machine.channelInactive()
        #expect(connection.machine.disconnectReason == nil)

        var slow = Connection()
        slow.open()
        _ = slow.machine.goodbye(.slowConsumer)
        _ = slow.machine.goodbye(.shutdown)
        #expect(slow.machine.disconnectReason == .slowConsumer)

        var cut = Connection()
        cut.open()
        _ = cut.machine.cutOff(heldBytes: 10, limit: 5)
        #expect(cut.machine.disconnectReason == .slowConsumer)

        var refused = Connection()
        refused.open()
        _ = refused.machine.lineTooLong(limit: 10)
        #expect(refused.machine.disconnectReason == .error)

        var failed = Connection()
        failed.open()
        failed.machine.connectionFailed()
        #expect(failed.machine.disconnectReason == .error)
    }

    @Test func aPumpAskedForWhileItRunsTakesAnotherRound() {
        var connection = Connection()
        let starts = connection.machine.pumpRequested()
        #expect(starts)
        #expect(!connection.machine.pumpsAgain)
        let nested = connection.machine.pumpRequested()
        #expect(!nested, "a nested pump ran")
        #expect(connection.machine.pumpsAgain)
        connection.machine.pumpRoundStarts()
        #expect(!connection.machine.pumpsAgain)
        connection.machine.pumpEnded()
        let startsAgain = connection.machine.pumpRequested()
        #expect(startsAgain)
    }
}
