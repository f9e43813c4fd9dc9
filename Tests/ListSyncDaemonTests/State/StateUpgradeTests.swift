import DurableFiles
import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// A daemon upgraded over the state the build before issue 18's one record format wrote (slots
/// and log in the files of `Tests/Fixtures/StateBeforeIssue18/daemon`, made by that build's
/// `listsyncd`) keeps the watch's history: same epoch, same version and digest, the same
/// changesets, and the history goes on from it. The records are read by DurableFiles'
/// `ChecksummedRecordReader` now.
struct StateUpgradeTests {
    static let fixtures = RepositoryFiles.fixtures("StateBeforeIssue18")
    static let watch = WatchConfiguration(name: "products", path: "/tmp/fx-w/products.csv", format: .csv, key: ["id"])
    static let epoch = Epoch(rawValue: 0x3c8e_5622_1aaa_2b3c)

    @Test func stateWrittenBeforeTheOneRecordFormatIsRestored() throws {
        let scratch = try ScratchDirectory()
        var store = WatchStateStore(stateDirectory: scratch.path, name: "products", historyLength: 8, crashPoints: .none)
        try FileOperations.makeDirectory(store.directory)
        for name in ["checkpoint.0", "checkpoint.1", "log"] {
            try EndToEndTests.Persistence.write(
                try EndToEndTests.Persistence.contents(of: "\(Self.fixtures)/daemon/\(name)"), to: "\(store.directory)/\(name)")
        }
        let oldLog = try EndToEndTests.Persistence.contents(of: store.logPath)

        let (restoration, setAside) = store.restore(for: Self.watch)
        #expect(setAside.isEmpty)
        guard case .restored(let version, let watch, let changesets) = restoration else {
            Issue.record("not restored: \(restoration)")
            return
        }
        let products = try EndToEndTests.Persistence.contents(of: "\(Self.fixtures)/products.csv")
        #expect(version.cursor == Cursor(epoch: Self.epoch, seq: 4))
        #expect(version.list.bytes == products, "the newest slot holds version 4's bytes")
        // Saved before protocol version 2: the checkpoint's digest is the version 1 one it is checked against.
        #expect(version.v1Digest == ListDigest(of: try ListReader(options: Self.watch.readOptions).read(bytes: products)))
        #expect(watch == Self.watch)
        #expect(changesets.count == 4, "the log's changesets 1 to 4")
        for (index, line) in changesets.enumerated() {
            #expect(String(decoding: line, as: UTF8.self).contains(#""cursor":"3c8e56221aaa2b3c:\#(index + 1)""#), "changeset \(index + 1)")
        }
        #expect(try WatchStateStoreTests.files(in: store.directory).sorted() == ["checkpoint.0", "checkpoint.1", "deltas", "log"], "nothing set aside; a journal started")
        #expect(try EndToEndTests.Persistence.contents(of: store.logPath) == oldLog, "the log is kept as it is")

        // Its records read with the one reader, each whole, up to the end.
        var records = ChecksummedRecordReader(oldLog, from: ChangesetLog.magic.count)
        let (payloads, damage) = records.readAll()
        #expect(damage == nil && payloads.count == 5 && records.isAtEnd, "a header and four changesets")

        // The history goes on from the old state, in the same files.
        let next = "id,name,price\n1,apple,2\n3,plum,1\n4,fig,7\n"
        let nextVersion = WatchVersion(
            epoch: Self.epoch, seq: 5, list: try ListReader(options: Self.watch.readOptions).read(bytes: Array(next.utf8)))
        try store.save(nextVersion, changeset: FileBytes(Array("five".utf8)), watch: Self.watch)
        try store.settleLog()
        var restarted = WatchStateStore(stateDirectory: scratch.path, name: "products", historyLength: 8, crashPoints: .none)
        guard case .restored(let again, _, let againChangesets) = restarted.restore(for: Self.watch).restoration else {
            Issue.record("not restored after the next version")
            return
        }
        #expect(again.cursor == Cursor(epoch: Self.epoch, seq: 5) && again.digest == nextVersion.digest)
        #expect(againChangesets == changesets + [Array("five".utf8)])
    }
}
