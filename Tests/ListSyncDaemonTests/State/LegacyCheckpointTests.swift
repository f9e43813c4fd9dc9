import DurableFiles
import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// A daemon upgraded over the state the builds before the checkpoint slots wrote (6d3930b and
/// earlier: one `checkpoint` file, magic `LSYNCCP1`, and the log) keeps the watch's history, as
/// docs/PROTOCOL.md promises: same epoch, same digest, the same changesets, and the state
/// converted to slots.
struct LegacyCheckpointTests {
    typealias Store = WatchStateStoreTests
    static let changesets = ["", "one", "two", "three"].map { Array($0.utf8) }

    /// The state 6d3930b left after publishing versions 0 through `seq` of history `epoch`, byte
    /// for byte: the log (format unchanged since) and the checkpoint in the old layout — the
    /// magic, the list's bytes framed, then the framed header (epoch, seq, digest, path, format,
    /// key, section_by, ignore, delimiter, ragged_rows). With `logOneAhead`, a crash between
    /// appending the next changeset and replacing the checkpoint: the log holds one more.
    static func writeLegacyState(seq: UInt64, epoch: Epoch, logOneAhead: Bool, in directory: String) throws -> (version: WatchVersion, log: [UInt8]) {
        let watch = Store.watch
        let version = try Store.version(Int(seq), seq: seq, epoch: epoch)
        var header = StateWriter()
        header.integer(epoch.rawValue)
        header.integer(seq)
        header.byteString(version.digest.bytes)
        header.string(watch.path)
        header.string(watch.format.rawValue)
        header.strings(watch.key)
        header.optionalString(watch.sectionBy)
        header.strings(watch.ignore)
        header.integer(watch.delimiter.map { UInt64($0.rawValue) + 1 } ?? 0)  // 0: none
        header.integer(0)  // ragged_rows: 0 error, 1 pad, 2 truncate
        #expect(watch.raggedRows == .error)
        let checkpoint = Array("LSYNCCP1".utf8) + StateWriter.frame(version.list.bytes) + StateWriter.frame(header.bytes)
        var log = ChangesetLog.empty(epoch: epoch, baseSeq: 0).file
        for record in UInt64(1)..<(seq + 1) {
            log += ChangesetLog.record(seq: record, line: FileBytes(Self.changesets[Int(record)])).array
        }
        let published = log
        if logOneAhead { log += ChangesetLog.record(seq: seq + 1, line: FileBytes(Array("never sent".utf8))).array }
        try FileOperations.makeDirectory(directory)
        try EndToEndTests.Persistence.write(checkpoint, to: directory + "/checkpoint")
        try EndToEndTests.Persistence.write(log, to: directory + "/log")
        return (version, published)
    }

    /// The old state is restored as the old build restored it — a changeset the log holds past
    /// the checkpoint was never sent and is dropped — and converted: a slot, the log leading to
    /// it, the old file gone. The next version carries on the same history.
    @Test(arguments: [UInt64(0), 2], [false, true])
    func oldStateIsRestoredAndConvertedToSlots(seq: UInt64, logOneAhead: Bool) throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 9)
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        let (expected, publishedLog) = try Self.writeLegacyState(seq: seq, epoch: epoch, logOneAhead: logOneAhead, in: store.directory)

        let (restoration, setAside) = store.restore(for: Store.watch)
        #expect(setAside.isEmpty)
        guard case .restored(let version, let watch, let changesets) = restoration else {
            Issue.record("not restored: \(restoration)")
            return
        }
        #expect(version.cursor == Cursor(epoch: epoch, seq: seq))
        #expect(version.digest == expected.digest)
        #expect(watch == Store.watch)
        #expect(changesets == Array(Self.changesets[1..<Int(seq + 1)]))
        #expect(try Store.files(in: store.directory) == ["checkpoint.0", "deltas", "log"])
        #expect(try EndToEndTests.Persistence.contents(of: store.logPath) == publishedLog)

        // The converted state restores alike, and the history goes on from it.
        let (again, againChangesets) = try Store.restored(from: scratch)
        #expect(again.cursor == version.cursor && again.digest == version.digest)
        #expect(againChangesets == changesets)
        try store.save(try Store.version(7, seq: seq + 1, epoch: epoch), changeset: FileBytes(Array("next".utf8)), watch: Store.watch)
        try store.settleLog()
        let (next, nextChangesets) = try Store.restored(from: scratch)
        #expect(next.cursor == Cursor(epoch: epoch, seq: seq + 1))
        #expect(nextChangesets == changesets + [Array("next".utf8)])
    }

    /// A conversion cut short leaves either state readable: a torn slot beside the old file
    /// (the slot is set aside and the old state converted again), or a whole slot beside it (the
    /// slot serves and the old file is removed).
    @Test(arguments: [false, true])
    func aConversionCutShortIsFinishedOnTheNextStart(slotIsWhole: Bool) throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 10)
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        let (expected, _) = try Self.writeLegacyState(seq: 2, epoch: epoch, logOneAhead: false, in: store.directory)
        let legacy = try EndToEndTests.Persistence.contents(of: store.legacyCheckpointPath)
        _ = store.restore(for: Store.watch)
        if !slotIsWhole {
            let slot = try EndToEndTests.Persistence.contents(of: store.slotPath(0))
            try EndToEndTests.Persistence.write(Array(slot.prefix(slot.count / 2)), to: store.slotPath(0))
        }
        try EndToEndTests.Persistence.write(legacy, to: store.legacyCheckpointPath)

        let (restoration, setAside) = store.restore(for: Store.watch)
        #expect(setAside.map(\.damage.path) == (slotIsWhole ? [] : [store.slotPath(0)]))
        guard case .restored(let version, _, let changesets) = restoration else {
            Issue.record("not restored: \(restoration)")
            return
        }
        #expect(version.cursor == Cursor(epoch: epoch, seq: 2) && version.digest == expected.digest)
        #expect(changesets == Array(Self.changesets[1...2]))
        #expect(try Store.files(in: store.directory) == (slotIsWhole ? ["checkpoint.0", "deltas", "log"] : ["checkpoint.0", "checkpoint.0.damaged", "deltas", "log"]))
    }

    /// A damaged old checkpoint (here: one byte of its list changed) is moved aside like any
    /// damaged state, and nothing of it is served.
    @Test func aDamagedOldCheckpointIsMovedAside() throws {
        let scratch = try ScratchDirectory()
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        _ = try Self.writeLegacyState(seq: 2, epoch: Epoch(rawValue: 11), logOneAhead: false, in: store.directory)
        var legacy = try EndToEndTests.Persistence.contents(of: store.legacyCheckpointPath)
        legacy[30] ^= 0x20
        try EndToEndTests.Persistence.write(legacy, to: store.legacyCheckpointPath)

        let (restoration, _) = store.restore(for: Store.watch)
        guard case .damaged(let damage) = restoration else {
            Issue.record("not damaged: \(restoration)")
            return
        }
        #expect(damage.damage.path == store.legacyCheckpointPath)
        #expect(try Store.files(in: store.directory) == ["checkpoint.damaged", "log"])
    }
}
