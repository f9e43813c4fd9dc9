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
            try store.save(try Self.version(Int(seq), seq: seq, epoch: epoch), changeset: Array("changeset \(seq)".utf8), watch: Self.watch)
            let file = try EndToEndTests.Persistence.contents(of: store.logPath)
            let (log, _) = try ChangesetLog.decode(file, leadingTo: seq)
            #expect(log.records.count <= 4, "after seq \(seq): \(log.records.count) changesets on disk")
            #expect(log.size == file.count)
        }
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 4, crashPoints: .none)
        guard case .restored(let version, let watch, let changesets) = restarted.restore(for: Self.watch) else {
            Issue.record("nothing restored")
            return
        }
        #expect(version.cursor == Cursor(epoch: epoch, seq: 10))
        #expect(version.digest == (try Self.version(10, seq: 10, epoch: epoch)).digest)
        #expect(watch == Self.watch)
        #expect((3...4).contains(changesets.count))
        #expect(changesets == (11 - changesets.count...10).map { Array("changeset \($0)".utf8) })
        // Two copies of the list at most: the checkpoint, and no temporary file left behind.
        #expect(access(store.checkpointPath + ".tmp", F_OK) != 0)
    }

    @Test func aNewEpochStartsANewLog() throws {
        let scratch = try ScratchDirectory()
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        try store.save(try Self.version(0, seq: 0, epoch: Epoch(rawValue: 1)), changeset: nil, watch: Self.watch)
        try store.save(try Self.version(1, seq: 1, epoch: Epoch(rawValue: 1)), changeset: Array("one".utf8), watch: Self.watch)
        try store.save(try Self.version(2, seq: 2, epoch: Epoch(rawValue: 2)), changeset: nil, watch: Self.watch)
        try store.save(try Self.version(3, seq: 3, epoch: Epoch(rawValue: 2)), changeset: Array("three".utf8), watch: Self.watch)
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        guard case .restored(let version, _, let changesets) = restarted.restore(for: Self.watch) else {
            Issue.record("nothing restored")
            return
        }
        #expect(version.cursor == Cursor(epoch: Epoch(rawValue: 2), seq: 3))
        #expect(changesets == [Array("three".utf8)])
    }

    @Test func anotherIdentityIsNotRestored() throws {
        let scratch = try ScratchDirectory()
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        try store.save(try Self.version(0, seq: 0, epoch: Epoch(rawValue: 1)), changeset: nil, watch: Self.watch)
        var moved = Self.watch
        moved.path = "/elsewhere.csv"
        guard case .identityChanged(let fields) = store.restore(for: moved) else {
            Issue.record("restored for another path")
            return
        }
        #expect(fields == [.path])
        var reignored = Self.watch
        reignored.ignore = ["price"]
        guard case .restored(_, let stored, _) = store.restore(for: reignored) else {
            Issue.record("ignore is not an identity")
            return
        }
        #expect(stored.ignore.isEmpty, "the list is restored with the settings it was read with")
    }

    /// A save whose checkpoint cannot be written fails after its changeset was appended; saving
    /// that seq again (with another changeset: the file changed meanwhile) replaces it, and the
    /// history before it is kept.
    @Test func savingASeqAgainReplacesAFailedAttempt() throws {
        let scratch = try ScratchDirectory()
        let epoch = Epoch(rawValue: 3)
        var store = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        try store.save(try Self.version(0, seq: 0, epoch: epoch), changeset: nil, watch: Self.watch)
        try store.save(try Self.version(1, seq: 1, epoch: epoch), changeset: Array("one".utf8), watch: Self.watch)
        // A directory where the checkpoint's temporary file goes: the checkpoint cannot be replaced.
        try FileOperations.makeDirectory(store.checkpointPath + ".tmp")
        #expect(throws: StateFileError.self) {
            try store.save(try Self.version(2, seq: 2, epoch: epoch), changeset: Array("two, first try".utf8), watch: Self.watch)
        }
        try FileOperations.removeDirectory(store.checkpointPath + ".tmp")
        try store.save(try Self.version(3, seq: 2, epoch: epoch), changeset: Array("two".utf8), watch: Self.watch)

        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "list", historyLength: 8, crashPoints: .none)
        guard case .restored(let version, _, let changesets) = restarted.restore(for: Self.watch) else {
            Issue.record("nothing restored")
            return
        }
        #expect(version.cursor == Cursor(epoch: epoch, seq: 2))
        #expect(version.digest == (try Self.version(3, seq: 2, epoch: epoch)).digest)
        #expect(changesets == [Array("one".utf8), Array("two".utf8)])
    }
}
