import DurableFiles
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

@Suite struct ChangesetHistoryTests {
    static func line(_ seq: UInt64) -> FileBytes {
        FileBytes(Array("changeset \(seq)\n".utf8))
    }

    @Test func keepsTheNewestChangesetsUpToItsCapacity() {
        var history = ChangesetHistory(capacity: 3)
        #expect(history.oldestSeq == nil)
        #expect(history.line(publishing: 1) == nil)
        for seq in 1...5 as ClosedRange<UInt64> {
            history.append(Self.line(seq), seq: seq)
        }
        #expect(history.count == 3)
        #expect(history.oldestSeq == 3)
        #expect(history.newestSeq == 5)
        #expect((1...6).map { history.line(publishing: $0) } == [nil, nil, Self.line(3), Self.line(4), Self.line(5), nil])
    }

    @Test func shrinkingDropsTheOldest() {
        var history = ChangesetHistory(capacity: 10)
        for seq in 1...6 as ClosedRange<UInt64> {
            history.append(Self.line(seq), seq: seq)
        }
        history.resize(capacity: 2)
        #expect(history.oldestSeq == 5)
        #expect(history.line(publishing: 4) == nil)
        #expect(history.line(publishing: 6) == Self.line(6))
        history.resize(capacity: 4)
        history.append(Self.line(7), seq: 7)
        #expect(history.oldestSeq == 5)
        #expect(history.count == 3)
    }

    @Test func sharesTheStorageOfTheLinesItKeeps() {
        var history = ChangesetHistory(capacity: 2)
        let line = Self.line(1)
        history.append(line, seq: 1)
        let kept = history.line(publishing: 1)
        #expect(kept?.pieces.first?.storage.address == line.pieces.first?.storage.address)
    }
}

@Suite struct SubscriptionStartTests {
    static let epoch = Epoch(rawValue: 42)

    /// A history holding the changesets that published `seqs`.
    static func history(_ seqs: ClosedRange<UInt64>?, capacity: Int = 100) -> ChangesetHistory {
        var history = ChangesetHistory(capacity: capacity)
        for seq in seqs.map(Array.init) ?? [] {
            history.append(FileBytes(Array("\(seq)".utf8)), seq: seq)
        }
        return history
    }

    @Test func aWatchWithoutAVersionAwaitsItsFirst() {
        #expect(SubscriptionStart.plan(since: nil, epoch: Self.epoch, currentSeq: nil, history: Self.history(nil)) == .awaitingFirstVersion)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 3), epoch: Self.epoch, currentSeq: nil, history: Self.history(nil)) == .awaitingFirstVersion)
    }

    @Test func noCursorAnotherEpochOrAnUnpublishedSeqGetsASnapshot() {
        let history = Self.history(1...5)
        #expect(SubscriptionStart.plan(since: nil, epoch: Self.epoch, currentSeq: 5, history: history) == .snapshot(reason: nil))
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Epoch(rawValue: 43), seq: 4), epoch: Self.epoch, currentSeq: 5, history: history) == .snapshot(reason: .otherHistory))
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 6), epoch: Self.epoch, currentSeq: 5, history: history) == .snapshot(reason: .unknownSeq))
    }

    @Test func aCursorStillInTheHistoryResumesRightAfterIt() {
        let history = Self.history(3...9, capacity: 7)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 2), epoch: Self.epoch, currentSeq: 9, history: history) == .resume(firstSeq: 3))
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 8), epoch: Self.epoch, currentSeq: 9, history: history) == .resume(firstSeq: 9))
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 9), epoch: Self.epoch, currentSeq: 9, history: history) == .resume(firstSeq: 10))
    }

    @Test func aCursorOlderThanTheHistoryGetsASnapshot() {
        let history = Self.history(3...9, capacity: 7)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 1), epoch: Self.epoch, currentSeq: 9, history: history) == .snapshot(reason: .historyTrimmed))
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 0), epoch: Self.epoch, currentSeq: 9, history: history) == .snapshot(reason: .historyTrimmed))
    }

    @Test func theFirstVersionResumesOnlyAtItself() {
        let empty = Self.history(nil)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 0), epoch: Self.epoch, currentSeq: 0, history: empty) == .resume(firstSeq: 1))
    }
}

@Suite struct ChangesetHistoryByteBoundTests {
    static func line(_ seq: UInt64, bytes: Int) -> FileBytes {
        FileBytes(Array(repeating: UInt8(ascii: "x"), count: bytes))
    }

    /// Memory never holds more than its byte bound, but for the newest line, which stays however
    /// large; the count bound holds too.
    @Test func memoryHoldsAtMostItsBytesButAlwaysTheNewest() {
        var history = ChangesetHistory(capacity: 100, cacheBytes: 1000)
        let sizes = [300, 300, 300, 300, 5000, 200, 200, 900, 100]
        for (offset, size) in sizes.enumerated() {
            history.append(Self.line(UInt64(offset + 1), bytes: size), seq: UInt64(offset + 1))
            #expect(history.bytes <= 1000 || history.count == 1, "after \(offset + 1): \(history.bytes) bytes in \(history.count) lines")
            #expect(history.line(publishing: UInt64(offset + 1))?.count == size, "the newest is kept")
        }
        // 900 + 100 fit; 200 more would not.
        #expect(history.count == 2 && history.oldestSeq == 8)
        #expect(history.line(publishing: 7) == nil)
    }

    /// Lines evicted from memory are read back from the archive (the log on disk) while it holds
    /// them without a gap; a line it does not hold is not kept.
    @Test func evictedLinesAreReadBackFromTheLog() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 9)
        let watch = WatchStateStoreTests.watch
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 100, historyMaxBytes: 1 << 20, crashPoints: .none)
        var history = ChangesetHistory(capacity: 100, cacheBytes: 250, epoch: epoch, archive: store.archive)
        try store.save(try WatchStateStoreTests.version(0, seq: 0, epoch: epoch), changeset: nil, watch: watch)
        try store.settleLog()
        for seq in UInt64(1)...6 {
            let line = FileBytes(Array(String(repeating: "\(seq)", count: 100).utf8))
            try store.save(try WatchStateStoreTests.version(Int(seq), seq: seq, epoch: epoch), changeset: line, watch: watch)
            history.append(line, seq: seq)
            try store.settleLog()
        }
        #expect(history.count == 2, "memory holds 2 lines of 100 bytes")
        #expect(history.oldestSeq == 1)
        for seq in UInt64(1)...6 {
            #expect(history.line(publishing: seq)?.array == Array(String(repeating: "\(seq)", count: 100).utf8))
        }
        if case .onDisk = history.kept(publishing: 1) {} else { Issue.record("seq 1 is not read from disk") }
        // Another epoch's archive serves nothing.
        let other = ChangesetHistory(capacity: 100, cacheBytes: 250, epoch: Epoch(rawValue: 10), archive: store.archive)
        #expect(other.line(publishing: 1) == nil)
    }
}

/// The feed keeps the tracker's changeset line itself, the array the state store holds as its
/// live version's changeset, not a copy of it (issue 19: a change of every row makes a line of
/// several times the file, which was held twice).
@Suite struct WatchFeedLineSharingTests {
    @Test func theHistorysLineIsThePublishedArray() throws {
        let feed = WatchFeed(
            watch: WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"]), epoch: EmbeddedConnection.epoch, historyLength: 10)
        feed.finishRestoring()
        var publisher = Publisher(feed: feed)
        publisher.publish(ids: [1, 2])
        let published = try #require(publisher.publish(ids: [1, 2, 3])?.changesetLine)
        guard case .changeset(let kept) = feed.next(after: WatchFeed.Position(nextSeq: 1)) else {
            Issue.record("no changeset after seq 0")
            return
        }
        #expect(kept == published)
        #expect(kept.pieces.first?.storage.address == published.pieces.first?.storage.address)
    }
}
