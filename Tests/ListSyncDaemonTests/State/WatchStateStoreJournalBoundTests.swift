import DurableFiles
import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// The journal stays within ``DeltaJournal/mostBytes(forListOf:)`` whatever happens to the full
/// checkpoints: a version whose record would take it past that is written whole to a slot, and
/// is not saved when that fails too; once a slot can be written, saving goes on and the version
/// restores exactly.
struct WatchStateStoreJournalBoundTests {
    static let watch = WatchConfiguration(name: "list", path: "/data/list.csv", format: .csv, key: ["sku"])

    /// Version `number` of a 3,000-row list (over the journal's least bound) that changes a
    /// block of 40 rows per version.
    static func version(_ number: Int, epoch: Epoch) throws -> WatchVersion {
        let bytes = Array(EndToEndTests.Persistence.blocks(number).utf8)
        return WatchVersion(epoch: epoch, seq: UInt64(number), list: try ListReader(options: Self.watch.readOptions).read(bytes: bytes))
    }

    static func changeset(_ number: Int) -> [UInt8] {
        Array("changeset \(number) ".utf8) + Array(repeating: UInt8(ascii: "c"), count: 4000)
    }

    @Test func aJournalWhoseCheckpointsFailStaysBoundedAndTheVersionPastItWaits() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 19)
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 1000, crashPoints: .none)
        try store.save(try Self.version(0, epoch: epoch), changeset: nil, watch: Self.watch)
        try store.settleLog()
        // Slot 1 cannot be written: every full checkpoint fails.
        try FileOperations.makeDirectory(store.slotPath(1))
        var refused: Int?
        for number in 1...60 where refused == nil {
            let saved = try Self.version(number, epoch: epoch)
            let bound = DeltaJournal.mostBytes(forListOf: saved.list.bytes.count)
            do throws(StateFileError) {
                try store.save(saved, changeset: FileBytes(Self.changeset(number)), watch: Self.watch)
                try store.settleLog()
            } catch {
                guard case .journalFull(let reported, _) = error else { throw error }
                #expect(reported == bound)
                refused = number
            }
            let journal = try EndToEndTests.Persistence.contents(of: store.journalPath)
            #expect(journal.count <= bound, "after version \(number): a journal of \(journal.count) bytes, bound \(bound)")
        }
        let waiting = try #require(refused, "the journal took every version")
        #expect(waiting > 2, "versions went to the journal until its bound")
        #expect(try WatchStateStoreTests.restored(from: scratch, watch: Self.watch, historyLength: 1000).version.cursor == Cursor(epoch: epoch, seq: UInt64(waiting - 1)))

        // The slot can be written again (the restore above moved the directory aside, as a slot
        // that does not read): the waiting version is written whole, a new journal starts at it,
        // and the next ones go to the journal.
        try FileOperations.removeDirectory(store.slotPath(1) + ".damaged")
        for number in waiting...(waiting + 2) {
            let saved = try Self.version(number, epoch: epoch)
            try store.save(saved, changeset: FileBytes(Self.changeset(number)), watch: Self.watch)
            try store.settleLog()
            let journal = try EndToEndTests.Persistence.contents(of: store.journalPath)
            let records = try WatchStateStoreTests.recordsEnd(ofJournal: journal)
            #expect(records <= saved.list.bytes.count / 2, "after version \(number): a journal of \(records) bytes")
            #expect(journal.count <= DeltaJournal.mostBytes(forListOf: saved.list.bytes.count))
            let (restored, changesets) = try WatchStateStoreTests.restored(from: scratch, watch: Self.watch, historyLength: 1000)
            #expect(restored.cursor == saved.cursor && restored.digest == saved.digest && restored.list.bytes == saved.list.bytes)
            #expect(changesets.last == Self.changeset(number))
            #expect(changesets.count == number, "the history before the refused version is kept")
        }
    }
}
