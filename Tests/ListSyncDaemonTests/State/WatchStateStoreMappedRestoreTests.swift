import DurableFiles
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Issue 19, after a restart: with ``WatchStateStore/mapsSavedBytes``, the version a restore
/// rebuilds from the newest slot and the journal's records after it is held as mappings of
/// them — the slot's bytes region with each record's inserted bytes spliced in — by the
/// restored version's list and by the store, as after a save; through full checkpoints (the
/// journal rebased or started anew), with a torn last record cut off, and the saves that follow
/// carry on mapped. Without it, nothing is mapped.
struct WatchStateStoreMappedRestoreTests {
    /// Whether every piece of `bytes` is a range of a mapped file region.
    static func isMapped(_ bytes: FileBytes) -> Bool {
        !bytes.pieces.isEmpty && bytes.pieces.allSatisfy { $0.storage.mappedRegion != nil }
    }

    /// The store of the scratch directory's watch, mapping its saved versions or not.
    static func store(in scratch: ScratchDirectory, mapping: Bool) -> WatchStateStore {
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 1000, crashPoints: .none)
        store.mapsSavedBytes = mapping
        return store
    }

    /// A store of the scratch directory's watch, restarted: what it restored, and the store.
    static func restart(_ scratch: ScratchDirectory, mapping: Bool) throws -> (version: WatchVersion, store: WatchStateStore) {
        var store = Self.store(in: scratch, mapping: mapping)
        guard case .restored(let version, _, _) = store.restore(for: WatchStateStoreTests.watch).restoration else {
            throw TestFailure(description: "nothing restored")
        }
        return (version, store)
    }

    @Test func aRestoredVersionIsHeldAsMappingsOfItsSlotAndJournalRecords() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 29)
        let watch = WatchStateStoreTests.watch
        var store = Self.store(in: scratch, mapping: true)
        var splicedRestores = 0
        var restoresAfterACheckpoint = 0
        for number in 0...60 {
            let version = try WatchStateStoreFileBytesTests.version(number, epoch: epoch)
            let array = version.list.bytes
            let changeset = number == 0 ? nil : FileBytes(Array("changeset \(number)".utf8))
            let staged = store.stagesCheckpoints ? try store.stageCheckpoint(of: FileBytes(array)) : nil
            try store.save(version, bytes: FileBytes(array), changeset: changeset, watch: watch, staged: staged)
            #expect(store.mappedLiveBytes.map { $0 == array && Self.isMapped($0) } == true, "version \(number): mapped after the save")
            // A restart, now and then before the full checkpoint that is due (the daemon stopped
            // before its settle wrote it): the restored version is the file's bytes, held
            // mapped, and the saves that follow are made by the restarted store.
            let restarts = number % 3 == 1
            try store.settleLog(writingCheckpoint: !restarts || number % 2 == 0)
            guard restarts else { continue }
            let (restored, restarted) = try Self.restart(scratch, mapping: true)
            let bytes = restored.list.fileBytes
            #expect(restored.cursor == version.cursor)
            #expect(bytes == array, "version \(number): the restored bytes are the version's")
            #expect(Self.isMapped(bytes), "version \(number): the restored bytes are mapped")
            #expect(restarted.mappedLiveBytes.map { $0 == array && Self.isMapped($0) } == true, "version \(number): the store holds them mapped")
            let journal = try DeltaJournal.decode(try EndToEndTests.Persistence.contents(of: store.journalPath), name: watch.name).journal
            if Set(bytes.pieces.map(\.storage.address)).count > 1 {
                splicedRestores += 1
                if journal.baseSeq > 0 { restoresAfterACheckpoint += 1 }
            }
            store = restarted
        }
        #expect(splicedRestores >= 5, "restores with journal records spliced in: \(splicedRestores)")
        #expect(restoresAfterACheckpoint >= 2, "of them after a full checkpoint: \(restoresAfterACheckpoint)")
        // Without mapping, nothing is.
        let (unmapped, plain) = try Self.restart(scratch, mapping: false)
        #expect(!unmapped.list.fileBytes.holdsMappings)
        #expect(plain.mappedLiveBytes == nil)
    }

    /// A record torn by a crash mid-append is cut off at the restore: the version before it is
    /// restored, mapped from the slot and the records that stay, and the next save appends
    /// where they end — mapped too, and restored again.
    @Test func aRestoreThatCutsATornRecordMapsTheRecordsBeforeIt() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 31)
        let watch = WatchStateStoreTests.watch
        var store = Self.store(in: scratch, mapping: true)
        let versions = try (0...4).map { try WatchStateStoreFileBytesTests.version($0, epoch: epoch) }
        for (number, version) in versions.enumerated() {
            let changeset = number == 0 ? nil : FileBytes(Array("changeset \(number)".utf8))
            let staged = store.stagesCheckpoints ? try store.stageCheckpoint(of: FileBytes(version.list.bytes)) : nil
            try store.save(version, bytes: FileBytes(version.list.bytes), changeset: changeset, watch: watch, staged: staged)
            // The last version's log append never happens: the daemon died while appending its record.
            if number < 4 { try store.settleLog(writingCheckpoint: false) }
        }
        let file = try EndToEndTests.Persistence.contents(of: store.journalPath)
        let end = try WatchStateStoreTests.recordsEnd(ofJournal: file)
        #expect(try DeltaJournal.decode(file, name: watch.name).entries.count == 4)
        try EndToEndTests.Persistence.write(WatchStateStoreTests.tearing(file, before: end, count: 40), to: store.journalPath)
        let (restored, restarted) = try Self.restart(scratch, mapping: true)
        #expect(restored.cursor == versions[3].cursor)
        #expect(restored.list.fileBytes == versions[3].list.bytes)
        #expect(Self.isMapped(restored.list.fileBytes))
        #expect(Set(restored.list.fileBytes.pieces.map(\.storage.address)).count > 1, "journal records spliced in")
        #expect(try EndToEndTests.Persistence.contents(of: store.journalPath).count < end, "the torn record is cut off")
        store = restarted
        let next = try WatchStateStoreFileBytesTests.version(4, epoch: epoch)
        try store.save(next, bytes: FileBytes(next.list.bytes), changeset: FileBytes(Array("changeset 4".utf8)), watch: watch)
        #expect(store.mappedLiveBytes.map { $0 == next.list.bytes && Self.isMapped($0) } == true)
        try store.settleLog(writingCheckpoint: false)
        let (again, _) = try Self.restart(scratch, mapping: true)
        #expect(again.list.fileBytes == next.list.bytes)
        #expect(Self.isMapped(again.list.fileBytes))
    }
}
