import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// Saving a version writes what changed, not the file: a one-row edit of a large list appends a
/// record of about the row to the journal (and its changeset to the log), and a restart rebuilds
/// the newest version from a checkpoint and the journal, with the same cursor and digest, and
/// serves resumes from before.
extension EndToEndTests.Persistence {
    @Test func aOneRowEditOfALargeFileWritesAboutTheRowAndARestartReplaysTheJournal() async throws {
        let rows = 200_000
        let harness = try DaemonHarness()
        let file = harness.path("products.csv")
        let original = Lists.products(rows: rows, version: 0)
        try FileOperations.write(original, to: file)
        let fileBytes = original.utf8.count
        try harness.writeConfig(["name = \"list\"\npath = \"products.csv\"\nkey = [\"sku\"]\nsection_by = \"category\""])
        try await harness.startDaemon()
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntil(timeout: .seconds(120)) { $0.mirror != nil })

        func edit(to version: Int) async throws {
            try EndToEndTests.Subscribers.save(Lists.products(rows: rows, version: version), to: file)
            #expect(try await subscriber.receiveUntil(timeout: .seconds(120)) { $0.changesets.last?.seq == UInt64(version) }, "version \(version)")
        }
        // Version 1 makes the second slot (written whole once, after it is published).
        try await edit(to: 1)
        try await edit(to: 2)
        try await Task.sleep(for: .milliseconds(500))
        let daemon = try #require(harness.daemon)
        let before = try daemon.process.ioBytes("write_bytes")
        var atFive: TestMirror?
        let edits = 10
        for version in 3..<(3 + edits) {
            try await edit(to: version)
            if version == 5 { atFive = subscriber.mirror }
        }
        try await Task.sleep(for: .milliseconds(500))
        let written = try daemon.process.ioBytes("write_bytes") - before
        // Each version: a journal record and a log record of about one row and its changeset,
        // each flushed (a page or two), and a log line. Saving the list whole wrote it all.
        #expect(
            written <= edits * 64 * 1024,
            "\(written) bytes written to storage for \(edits) one-row edits of a \(fileBytes)-byte file: \(written / edits) per edit")
        let last = try #require(subscriber.mirror)

        // Killed: nothing is written at shutdown; the newest versions are only in the journal.
        daemon.send(SIGKILL)
        #expect(try await daemon.exited() == 128 + SIGKILL)
        try await harness.startDaemon()
        #expect(harness.log.contains("state restored"), "\(harness.log)")
        let resumed = try await harness.subscribe("list", mirror: try #require(atFive))
        #expect(resumed.reply?.mode == .resume)
        #expect(try await resumed.receiveUntil(timeout: .seconds(60)) { $0.changesets.last == last.cursor })
        #expect(resumed.changesets.map(\.seq) == Array(6...UInt64(2 + edits)))
        #expect(resumed.changesetMessages == Array(subscriber.changesetMessages.suffix(edits - 3)), "the same changesets, byte for byte")
        #expect(resumed.mirror?.cursor == last.cursor && resumed.mirror?.digest == last.digest)
        #expect(resumed.snapshots == 0)
        #expect(try await harness.stopDaemon() == 0)
    }
}
