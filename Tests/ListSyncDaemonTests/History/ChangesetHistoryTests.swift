import ListSyncProtocol
import NIOCore
import Testing
@testable import ListSyncDaemon

@Suite struct ChangesetHistoryTests {
    static func line(_ seq: UInt64) -> ByteBuffer {
        ByteBuffer(string: "changeset \(seq)\n")
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
        #expect(kept?.withUnsafeReadableBytes { $0.baseAddress } == line.withUnsafeReadableBytes { $0.baseAddress })
    }
}

@Suite struct SubscriptionStartTests {
    static let epoch = Epoch(rawValue: 42)

    /// A history holding the changesets that published `seqs`.
    static func history(_ seqs: ClosedRange<UInt64>?, capacity: Int = 100) -> ChangesetHistory {
        var history = ChangesetHistory(capacity: capacity)
        for seq in seqs.map(Array.init) ?? [] {
            history.append(ByteBuffer(string: "\(seq)"), seq: seq)
        }
        return history
    }

    @Test func aWatchWithoutAVersionAwaitsItsFirst() {
        #expect(SubscriptionStart.plan(since: nil, epoch: Self.epoch, currentSeq: nil, history: Self.history(nil)) == .awaitingFirstVersion)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 3), epoch: Self.epoch, currentSeq: nil, history: Self.history(nil)) == .awaitingFirstVersion)
    }

    @Test func noCursorAnotherEpochOrAnUnpublishedSeqGetsASnapshot() {
        let history = Self.history(1...5)
        #expect(SubscriptionStart.plan(since: nil, epoch: Self.epoch, currentSeq: 5, history: history) == .snapshot)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Epoch(rawValue: 43), seq: 4), epoch: Self.epoch, currentSeq: 5, history: history) == .snapshot)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 6), epoch: Self.epoch, currentSeq: 5, history: history) == .snapshot)
    }

    @Test func aCursorStillInTheHistoryResumesRightAfterIt() {
        let history = Self.history(3...9, capacity: 7)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 2), epoch: Self.epoch, currentSeq: 9, history: history) == .resume(firstSeq: 3))
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 8), epoch: Self.epoch, currentSeq: 9, history: history) == .resume(firstSeq: 9))
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 9), epoch: Self.epoch, currentSeq: 9, history: history) == .resume(firstSeq: 10))
    }

    @Test func aCursorOlderThanTheHistoryGetsASnapshot() {
        let history = Self.history(3...9, capacity: 7)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 1), epoch: Self.epoch, currentSeq: 9, history: history) == .snapshot)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 0), epoch: Self.epoch, currentSeq: 9, history: history) == .snapshot)
    }

    @Test func theFirstVersionResumesOnlyAtItself() {
        let empty = Self.history(nil)
        #expect(SubscriptionStart.plan(since: Cursor(epoch: Self.epoch, seq: 0), epoch: Self.epoch, currentSeq: 0, history: empty) == .resume(firstSeq: 1))
    }
}
