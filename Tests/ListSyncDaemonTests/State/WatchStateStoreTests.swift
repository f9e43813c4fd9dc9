import DurableFiles
import Glibc
import ListFormats
import ListSyncProtocol
import Testing
@testable import ListSyncDaemon

/// The state store on its own: what it keeps on disk stays bounded, and what it restores is what
/// it saved.
struct WatchStateStoreTests {
    static let watch = WatchConfiguration(name: "list", path: "/data/list.csv", format: .csv, key: ["sku"], sectionBy: "category")

    static func version(_ number: Int, seq: UInt64, epoch: Epoch) throws -> WatchVersion {
        WatchVersion(epoch: epoch, seq: seq, list: try ListReader(options: Self.watch.readOptions).read(bytes: Array(Lists.catalogue(number).utf8)))
    }

    @Test func theLogKeepsAtMostHistoryLengthChangesetsAndRestoresTheNewest() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 7)
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 4, crashPoints: .none)
        try store.save(try Self.version(0, seq: 0, epoch: epoch), changeset: nil, watch: Self.watch)
        for seq in UInt64(1)...10 {
            try store.save(try Self.version(Int(seq), seq: seq, epoch: epoch), changeset: FileBytes(Array("changeset \(seq)".utf8)), watch: Self.watch)
            try store.settleLog()
            let file = try EndToEndTests.Persistence.contents(of: store.logPath)
            let (log, _) = try #require(try ChangesetLog.decode(file, epoch: epoch, leadingTo: seq))
            #expect(log.lastSeq == seq)
            #expect(log.records.count <= 4, "after seq \(seq): \(log.records.count) changesets on disk")
            #expect(ZeroFilledAppendRegion.isPadding(file[log.size...]), "only padding follows the records")
            #expect(file.count <= DaemonConfiguration.Defaults.historyMaxMiB << 20)
        }
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 4, crashPoints: .none)
        guard case .restored(let version, let watch, let changesets) = restarted.restore(for: Self.watch).restoration else {
            Issue.record("nothing restored")
            return
        }
        #expect(version.cursor == Cursor(epoch: epoch, seq: 10))
        #expect(version.digest == (try Self.version(10, seq: 10, epoch: epoch)).digest)
        #expect(watch == Self.watch)
        #expect((3...4).contains(changesets.count))
        #expect(changesets == (11 - changesets.count...10).map { Array("changeset \($0)".utf8) })
        // Two copies of the list at most, the slots, the journal, and no temporary file left behind.
        #expect(try Self.files(in: store.directory) == ["checkpoint.0", "checkpoint.1", "deltas", "log"])
    }

    @Test func aNewEpochStartsANewLog() throws {
        let scratch = try ScratchDirectory()
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        try store.save(try Self.version(0, seq: 0, epoch: Epoch(rawValue: 1)), changeset: nil, watch: Self.watch)
        try store.save(try Self.version(1, seq: 1, epoch: Epoch(rawValue: 1)), changeset: FileBytes(Array("one".utf8)), watch: Self.watch)
        try store.settleLog()
        try store.save(try Self.version(2, seq: 2, epoch: Epoch(rawValue: 2)), changeset: nil, watch: Self.watch)
        try store.settleLog()
        try store.save(try Self.version(3, seq: 3, epoch: Epoch(rawValue: 2)), changeset: FileBytes(Array("three".utf8)), watch: Self.watch)
        try store.settleLog()
        let (version, changesets) = try Self.restored(from: scratch)
        #expect(version.cursor == Cursor(epoch: Epoch(rawValue: 2), seq: 3))
        #expect(changesets == [Array("three".utf8)])
    }

    @Test func anotherIdentityIsNotRestored() throws {
        let scratch = try ScratchDirectory()
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        try store.save(try Self.version(0, seq: 0, epoch: Epoch(rawValue: 1)), changeset: nil, watch: Self.watch)
        var moved = Self.watch
        moved.path = "/elsewhere.csv"
        guard case .identityChanged(let fields) = store.restore(for: moved).restoration else {
            Issue.record("restored for another path")
            return
        }
        #expect(fields == [.path])
        var reignored = Self.watch
        reignored.ignore = ["price"]
        guard case .restored(_, let stored, _) = store.restore(for: reignored).restoration else {
            Issue.record("ignore is not an identity")
            return
        }
        #expect(stored.ignore.isEmpty, "the list is restored with the settings it was read with")
    }

    /// A save whose journal record cannot be written fails and leaves the last saved version
    /// restorable; saving that seq again (with another changeset: the file changed meanwhile)
    /// works — whole, into a slot, as the journal is in doubt — and the history before it is kept.
    @Test func savingASeqAgainReplacesAFailedAttempt() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 3)
        var store = try Self.store(savingUpTo: 1, epoch: epoch, in: scratch)
        // A directory where the journal goes: it cannot be appended to.
        try FileOperations.remove(store.journalPath)
        try FileOperations.makeDirectory(store.journalPath)
        #expect(throws: StateFileError.self) {
            try store.save(try Self.version(2, seq: 2, epoch: epoch), changeset: FileBytes(Array("two, first try".utf8)), watch: Self.watch)
        }
        try FileOperations.removeDirectory(store.journalPath)
        #expect(try Self.restored(from: scratch).version.cursor == Cursor(epoch: epoch, seq: 1))
        try store.save(try Self.version(3, seq: 2, epoch: epoch), changeset: FileBytes(Array("two".utf8)), watch: Self.watch)
        try store.settleLog()

        let (version, changesets) = try Self.restored(from: scratch)
        #expect(version.cursor == Cursor(epoch: epoch, seq: 2))
        #expect(version.digest == (try Self.version(3, seq: 2, epoch: epoch)).digest)
        #expect(changesets == [Array("one".utf8), Array("two".utf8)])
    }

    /// The newest version's changeset reaches the log only after it is published: until then its
    /// slot carries it, and a restart puts it in the log.
    @Test func aChangesetNotYetInTheLogIsRestoredFromItsSlot() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 4)
        var store = try Self.store(savingUpTo: 1, epoch: epoch, in: scratch)
        try store.save(try Self.version(2, seq: 2, epoch: epoch), changeset: FileBytes(Array("two".utf8)), watch: Self.watch)
        let (version, changesets) = try Self.restored(from: scratch)
        #expect(version.cursor == Cursor(epoch: epoch, seq: 2))
        #expect(changesets == [Array("one".utf8), Array("two".utf8)])
        let log = try EndToEndTests.Persistence.contents(of: store.logPath)
        #expect(try ChangesetLog.decode(log, epoch: epoch, leadingTo: 2)?.log.lastSeq == 2, "the restart appended it")
    }

    /// An append cut short (a crash, a full disk) leaves a torn record at the end of the log's
    /// records — followed by its zeros, or, in a log written before them, at the file's end: it
    /// is dropped, and the changeset restored from its slot.
    @Test(arguments: [true, false])
    func aTornAppendIsDroppedAndTheChangesetRestoredFromItsSlot(followedByZeros: Bool) throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 5)
        let store = try Self.store(savingUpTo: 2, epoch: epoch, in: scratch)
        let log = try EndToEndTests.Persistence.contents(of: store.logPath)
        let end = try #require(try ChangesetLog.decode(log, epoch: epoch, leadingTo: 2)).log.size
        #expect(end < log.count, "zeros follow the records")
        let torn = followedByZeros ? Self.tearing(log, before: end, count: 2) : Array(log[..<(end - 2)])
        try EndToEndTests.Persistence.write(torn, to: store.logPath)
        let (version, changesets) = try Self.restored(from: scratch)
        #expect(version.cursor == Cursor(epoch: epoch, seq: 2))
        #expect(changesets == [Array("one".utf8), Array("two".utf8)])
        let restored = try EndToEndTests.Persistence.contents(of: store.logPath)
        #expect(restored.prefix(end) == log.prefix(end), "the record is appended again")
        #expect(ZeroFilledAppendRegion.isPadding(restored[end...]), "nothing of the torn record is left after it")
    }

    /// A version saved to the journal, and its changeset to the log, are written over zeros
    /// the files already hold: neither file's size nor its blocks change, so their flushes need
    /// no commit of the file system's journal. A journal written before the zeros (its records
    /// up to its end) restores, and its next append gives it zeros.
    @Test func aVersionSavedToTheJournalChangesNeitherItsFilesSizeNorItsBlocks() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 21)
        func version(_ number: Int) throws -> WatchVersion { try Self.products(number, rows: 3000, epoch: epoch) }
        func status(_ path: String) throws -> [Int] {
            var status = stat()
            guard stat(path, &status) == 0 else { throw TestFailure(description: "stat \(path): errno \(errno)") }
            return [Int(status.st_size), Int(status.st_blocks)]
        }
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 1000, crashPoints: .none)
        try store.save(try version(0), changeset: nil, watch: Self.watch)
        try store.settleLog()
        try store.save(try version(1), changeset: FileBytes(Array("changeset 1".utf8)), watch: Self.watch)
        try store.settleLog()
        let before = try [status(store.journalPath), status(store.logPath)]
        let records = try Self.recordsEnd(ofJournal: try EndToEndTests.Persistence.contents(of: store.journalPath))
        for number in 2...6 {
            try store.save(try version(number), changeset: FileBytes(Array("changeset \(number)".utf8)), watch: Self.watch)
            try store.settleLog()
            #expect(try [status(store.journalPath), status(store.logPath)] == before, "after version \(number)")
        }
        let journal = try EndToEndTests.Persistence.contents(of: store.journalPath)
        #expect(try Self.recordsEnd(ofJournal: journal) > records, "the versions went to the journal")
        #expect(try Self.restored(from: scratch, historyLength: 1000).version.digest == (try version(6)).digest)

        // The journal as a build before the zeros wrote it: restored, and appended to with zeros.
        try EndToEndTests.Persistence.write(Array(journal.prefix(try Self.recordsEnd(ofJournal: journal))), to: store.journalPath)
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 1000, crashPoints: .none)
        guard case .restored(let restored, _, _) = restarted.restore(for: Self.watch).restoration else {
            throw TestFailure(description: "nothing restored from a journal without zeros")
        }
        #expect(restored.digest == (try version(6)).digest)
        try restarted.save(try version(7), changeset: FileBytes(Array("changeset 7".utf8)), watch: Self.watch)
        try restarted.settleLog()
        let extended = try EndToEndTests.Persistence.contents(of: store.journalPath)
        #expect(extended.count > (try Self.recordsEnd(ofJournal: extended)), "zeros follow the records")
        #expect(try Self.restored(from: scratch, historyLength: 1000).version.digest == (try version(7)).digest)
    }

    /// Version `number` (its `seq` too) of a products list of `rows` rows in history `epoch`.
    static func products(_ number: Int, rows: Int, epoch: Epoch) throws -> WatchVersion {
        let bytes = Array(Lists.products(rows: rows, version: number).utf8)
        return WatchVersion(epoch: epoch, seq: UInt64(number), list: try ListReader(options: Self.watch.readOptions).read(bytes: bytes))
    }

    /// `file` with the `count` bytes before `end` (where its records end) zeroed: the last
    /// record torn by a crash, as an append into zeros leaves it (`count` must reach bytes of
    /// the record that are not zeros).
    static func tearing(_ file: [UInt8], before end: Int, count: Int) -> [UInt8] {
        var torn = file
        torn.replaceSubrange((end - count)..<end, with: repeatElement(0, count: count))
        return torn
    }

    /// Where the records of the journal `file` end (only zeros follow).
    static func recordsEnd(ofJournal file: [UInt8]) throws -> Int {
        try DeltaJournal.decode(file, name: Self.watch.name).journal.size
    }

    /// The newest slot torn (here: one byte of its list changed) is moved aside and never
    /// served: the other slot and the journal's records after its version lead to the newest
    /// version. Before the log has version 2's changeset, version 2 is in the journal only and
    /// the newest slot is slot 1 (version 1; slot 0 holds version 0); after it, the settle wrote
    /// version 2 whole over slot 0 (this list is small: its journal soon outweighs a quarter of it).
    @Test(arguments: [false, true])
    func aTornSlotIsSetAsideAndNeverServed(logHasItsChangeset: Bool) throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 6)
        var store = try Self.store(savingUpTo: 1, epoch: epoch, in: scratch)
        try store.save(try Self.version(2, seq: 2, epoch: epoch), changeset: FileBytes(Array("two".utf8)), watch: Self.watch)
        if logHasItsChangeset { try store.settleLog() }
        let torn = logHasItsChangeset ? 0 : 1
        var slot = try EndToEndTests.Persistence.contents(of: store.slotPath(torn))
        slot[Checkpoint.bytesOffset + 10] ^= 0x20
        try EndToEndTests.Persistence.write(slot, to: store.slotPath(torn))

        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        let (restoration, setAside) = restarted.restore(for: Self.watch)
        #expect(setAside.map(\.damage.path) == [store.slotPath(torn)])
        #expect(access(store.slotPath(torn) + ".damaged", F_OK) == 0, "moved aside")
        guard case .restored(let version, _, let changesets) = restoration else {
            Issue.record("unexpected: \(restoration)")
            return
        }
        #expect(version.cursor == Cursor(epoch: epoch, seq: 2))
        #expect(version.digest == (try Self.version(2, seq: 2, epoch: epoch)).digest)
        #expect(changesets == [Array("one".utf8), Array("two".utf8)])
    }

    /// A store that saved versions 0 through `last` of history `epoch`, each published.
    static func store(savingUpTo last: UInt64, epoch: Epoch, in scratch: ScratchDirectory) throws -> WatchStateStore {
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        let names = ["", "one", "two", "three"]
        for seq in 0...last {
            try store.save(try Self.version(Int(seq), seq: seq, epoch: epoch), changeset: seq == 0 ? nil : FileBytes(Array(names[Int(seq)].utf8)), watch: Self.watch)
            try store.settleLog()
        }
        return store
    }

    /// A store of the watch `list` in `scratch` that saved version 0 of history `epoch`, with no
    /// changeset: where a test of the changesets it saves and restores starts.
    static func storeAtVersionZero(
        epoch: Epoch, in scratch: ScratchDirectory, historyLength: Int = 100,
        historyMaxBytes: Int = DaemonConfiguration.Defaults.historyMaxMiB << 20
    ) throws -> WatchStateStore {
        var store = WatchStateStore(
            stateDirectory: scratch.path, name: "list", historyLength: historyLength, historyMaxBytes: historyMaxBytes, crashPoints: .none
        )
        try store.save(try Self.version(0, seq: 0, epoch: epoch), changeset: nil, watch: Self.watch)
        return store
    }

    /// What a restarted store of `watch` (keeping `historyLength` changesets) restores from `scratch`.
    static func restored(
        from scratch: ScratchDirectory, watch: WatchConfiguration = Self.watch, historyLength: Int = 8
    ) throws -> (version: WatchVersion, changesets: [[UInt8]]) {
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: historyLength, crashPoints: .none)
        guard case .restored(let version, _, let changesets) = restarted.restore(for: watch).restoration else {
            throw TestFailure(description: "nothing restored")
        }
        return (version, changesets)
    }

    static func files(in directory: String) throws -> [String] {
        guard let stream = opendir(directory) else { throw TestFailure(description: "cannot open \(directory)") }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

extension WatchStateStoreTests {
    /// The log holds at most `historyMaxBytes` of changesets, dropping the oldest; the newest is
    /// kept even when it alone is larger; and what it keeps restores.
    @Test func theLogKeepsAtMostHistoryMaxBytesButAlwaysTheNewest() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 12)
        let bound = 10_000
        var store = try Self.storeAtVersionZero(epoch: epoch, in: scratch, historyLength: 1000, historyMaxBytes: bound)
        let sizes = [3000, 3000, 3000, 3000, 3000, 25_000, 2000, 2000, 2000, 2000, 2000, 2000]
        func line(_ seq: UInt64) -> [UInt8] { Array(String(repeating: "\(seq % 10)", count: sizes[Int(seq) - 1]).utf8) }
        for seq in UInt64(1)...UInt64(sizes.count) {
            try store.save(try Self.version(Int(seq), seq: seq, epoch: epoch), changeset: FileBytes(line(seq)), watch: Self.watch)
            try store.settleLog()
            let file = try EndToEndTests.Persistence.contents(of: store.logPath)
            let (log, lines) = try #require(try ChangesetLog.decode(file, epoch: epoch, leadingTo: seq))
            #expect(log.lastSeq == seq)
            #expect(lines.last.map(Array.init) == line(seq), "the newest is kept")
            #expect(log.recordBytes <= bound || log.records.count == 1, "after \(seq): \(log.recordBytes) bytes in \(log.records.count) changesets")
        }
        let (version, changesets) = try Self.restored(from: scratch)
        #expect(version.cursor == Cursor(epoch: epoch, seq: UInt64(sizes.count)))
        #expect(!changesets.isEmpty && changesets.last == line(UInt64(sizes.count)))
    }
}

extension WatchStateStoreTests {
    /// Many one-row edits of a list of some size: each goes to the journal, a full checkpoint now
    /// and then keeps the journal under about half the list (far fewer checkpoints than
    /// versions), and a restart at any point rebuilds the newest version, digest and all.
    @Test func manyVersionsGoToTheJournalWithAFullCheckpointNowAndThen() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 13)
        func version(_ number: Int) throws -> WatchVersion { try Self.products(number, rows: 400, epoch: epoch) }
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 1000, crashPoints: .none)
        try store.save(try version(0), changeset: nil, watch: Self.watch)
        try store.settleLog()
        var slots = try (0..<2).map { try? EndToEndTests.Persistence.contents(of: store.slotPath($0)) }
        var checkpoints = 0
        let versions = 120
        for number in 1...versions {
            let saved = try version(number)
            try store.save(saved, changeset: FileBytes(Array("changeset \(number)".utf8)), watch: Self.watch)
            try store.settleLog()
            let now = try (0..<2).map { try? EndToEndTests.Persistence.contents(of: store.slotPath($0)) }
            checkpoints += zip(slots, now).filter { $0 != $1 }.count
            slots = now
            let journal = try EndToEndTests.Persistence.contents(of: store.journalPath)
            let records = try Self.recordsEnd(ofJournal: journal)
            #expect(records <= saved.list.bytes.count / 2 + 1024, "after \(number): a journal of \(records) bytes")
            #expect(journal.count <= DeltaJournal.mostBytes(forListOf: saved.list.bytes.count), "after \(number): a journal file of \(journal.count) bytes")
            if number % 20 == 0 || number == 1 {
                let (restored, changesets) = try Self.restored(from: scratch)
                #expect(restored.cursor == saved.cursor && restored.digest == saved.digest && restored.list.bytes == saved.list.bytes)
                #expect(changesets.last == Array("changeset \(number)".utf8))
            }
        }
        #expect((2...versions / 5).contains(checkpoints), "\(checkpoints) full checkpoints for \(versions) versions")
    }

    /// A journal record cut short whose changeset the log already holds was published: the
    /// state is damaged (never served as the version before), not silently rolled back.
    @Test func aTornJournalRecordOfAPublishedVersionIsDamage() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 14)
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 100, crashPoints: .none)
        for number in 0...3 {
            let bytes = Array(Lists.products(rows: 2000, version: number).utf8)
            let saved = WatchVersion(epoch: epoch, seq: UInt64(number), list: try ListReader(options: Self.watch.readOptions).read(bytes: bytes))
            try store.save(saved, changeset: number == 0 ? nil : FileBytes(Array("changeset \(number)".utf8)), watch: Self.watch)
            try store.settleLog()
        }
        let journal = try EndToEndTests.Persistence.contents(of: store.journalPath)
        try EndToEndTests.Persistence.write(Self.tearing(journal, before: try Self.recordsEnd(ofJournal: journal), count: 100), to: store.journalPath)
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        guard case .damaged(let file) = restarted.restore(for: Self.watch).restoration else {
            Issue.record("a rolled-back version was served")
            return
        }
        #expect(file.damage.path == store.logPath)
    }
}
