import DurableFiles
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// What a restore hands to memory: the newest changesets within the cache bound.
struct WatchStateStoreRestoreBoundTests {
    /// A restore returns only the newest changesets that fit `restoredBytes` (the newest always,
    /// however large), oldest first, exactly as saved; the others stay on disk for the archive.
    @Test func aRestoreKeepsTheNewestChangesetsWithinTheCacheBound() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 11)
        let watch = WatchStateStoreTests.watch
        var store = try WatchStateStoreTests.storeAtVersionZero(epoch: epoch, in: scratch)
        let line = { (seq: UInt64) in Array(String(repeating: "\(seq % 10)", count: seq == 8 ? 500 : 100).utf8) }
        for seq in UInt64(1)...8 {
            try store.save(try WatchStateStoreTests.version(Int(seq), seq: seq, epoch: epoch), changeset: FileBytes(line(seq)), watch: watch)
            try store.settleLog()
        }
        for (bound, expected) in [(250, 8...8), (700, 6...8), (Int.max, 1...8)] {
            var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 100, crashPoints: .none)
            restarted.restoredBytes = bound
            guard case .restored(let version, _, let changesets) = restarted.restore(for: watch).restoration else {
                Issue.record("nothing restored")
                return
            }
            #expect(version.cursor == Cursor(epoch: epoch, seq: 8))
            #expect(changesets == expected.map { line(UInt64($0)) }, "bound \(bound)")
            #expect(restarted.archive.line(publishing: 1, of: epoch) == line(1), "older changesets stay readable from disk")
        }
    }
}
