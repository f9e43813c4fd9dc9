import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// The journal (`deltas`) stays bounded in bytes when full checkpoints keep failing: past its
/// bound no version is published, the status and the log say why, and the watch catches up by
/// itself once a checkpoint can be written again.
extension EndToEndTests.Persistence {
    /// A list of 3,000 rows (about 130 KB, over the journal's least bound) in which version
    /// `version` changes the price of a block of 40 rows: each version's record (the changed
    /// bytes and the changeset) takes about a tenth of the list.
    static func blocks(_ version: Int) -> String {
        "sku,name,price\n"
            + (0..<3000).map { row in
                "K\(row),item \(row) with a name of some length,\(row / 40 == version % 75 ? version : 0).5\n"
            }.joined()
    }

    @Test func theJournalStaysBoundedWhenFullCheckpointsCannotBeWritten() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("list.csv")
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        try FileOperations.write(Self.blocks(0), to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"list.csv\"\nkey = [\"sku\"]"])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil { $0.mirror != nil && $0.status?.state == .ok })
        // Slot 0 holds version 0; a directory where slot 1 goes: no full checkpoint can be
        // written, while the journal can still be appended to.
        let slot = harness.path("state/list/checkpoint.1")
        try FileOperations.makeDirectory(slot)
        let journal = harness.path("state/list/deltas")
        let bound = DeltaJournal.mostBytes(forListOf: Self.blocks(1).utf8.count)
        func cannotSave(_ subscriber: MirrorSubscriber) -> Bool {
            subscriber.status?.warnings.contains { $0.message.contains("no full checkpoint can be written") } == true
        }
        var version = 0
        var published = 0
        while !cannotSave(subscriber), version < 30 {
            version += 1
            try EndToEndTests.Subscribers.save(Self.blocks(version), to: file)
            let seq = UInt64(version)
            #expect(
                try await subscriber.receiveUntil(timeout: .seconds(30)) { $0.changesets.last?.seq == seq || cannotSave($0) },
                "version \(version)\n\(harness.log)")
            if subscriber.changesets.last?.seq == seq { published += 1 }
            let size = try EndToEndTests.Persistence.contents(of: journal).count
            #expect(size <= bound, "after version \(version): a journal of \(size) bytes, over its bound of \(bound)")
        }
        #expect(cannotSave(subscriber), "after \(version) versions: \(String(describing: subscriber.status))")
        #expect(published >= 2, "versions are journaled until the bound: \(published) of \(version) published")
        #expect(subscriber.changesets.map(\.seq) == Array(1...UInt64(published)), "the version past the bound is not published")
        #expect(harness.log.contains("cannot save the watch's state"))

        // The slot can be written again: the waiting version is saved whole and published, and
        // a new journal starts at it.
        try FileOperations.removeDirectory(slot)
        #expect(
            try await subscriber.receiveUntilMirroring(file, options: options, timeout: .seconds(30)),
            "\(subscriber.changesets.map(\.seq)) \(String(describing: subscriber.status))\n\(harness.log)")
        #expect(try await subscriber.receiveUntil { $0.status?.warnings.isEmpty == true })
        #expect(subscriber.changesets.map(\.seq) == Array(1...UInt64(published + 1)))
        let last = try #require(subscriber.mirror)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try EndToEndTests.Persistence.contents(of: journal).count <= bound)

        // What was saved restores exactly.
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let resumed = try await harness.subscribe("list", mirror: last)
        #expect(try await resumed.receiveUntil { $0.status?.state == .ok })
        #expect(resumed.reply?.mode == .resume && resumed.snapshots == 0)
        #expect(resumed.mirror?.cursor == last.cursor && resumed.mirror?.digest == last.digest)
        #expect(try await harness.stopDaemon() == 0)
    }
}
