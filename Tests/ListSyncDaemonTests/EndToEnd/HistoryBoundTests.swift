import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// The history is bounded in bytes: on disk by `history_max_mib`, in memory by
/// `history_cache_mib`. A client resuming from a changeset that only the disk still holds gets
/// exactly the changesets it missed; one older than the disk holds gets a snapshot, and the
/// reply says why.
extension EndToEndTests.Persistence {
    /// A keyed, unsectioned list of `rows` rows in which version `version` changes every row.
    static func wholeListVersion(_ version: Int, rows: Int = 4000) -> String {
        "sku,name,price\n" + (0..<rows).map { "S\($0),item \($0) with a name of some length,\(version).\($0 % 100)\n" }.joined()
    }

    /// Waits until the log at `path` leads to version `seq` of history `epoch` (it is appended
    /// after the version is published), and returns it with the bytes it was read from.
    static func log(at path: String, epoch: Epoch, reaching seq: UInt64) async throws -> (log: ChangesetLog, file: [UInt8]) {
        var reached: (log: ChangesetLog, file: [UInt8])?
        try await eventually("the log \(path) leads to version \(seq)") {
            guard access(path, F_OK) == 0 else { return false }
            let file = try Self.contents(of: path)
            guard let (log, _) = try ChangesetLog.decode(file, epoch: epoch, leadingTo: seq), log.lastSeq == seq else { return false }
            reached = (log, file)
            return true
        }
        return try #require(reached)
    }

    @Test func wholeListChangesStayWithinTheByteBoundsAndOldCursorsAreServedFromDisk() async throws {
        let harness = try DaemonHarness()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let file = harness.path("whole.csv")
        try FileOperations.write(Self.wholeListVersion(0), to: file)
        try harness.writeConfig(["name = \"whole\"\npath = \"whole.csv\"\nkey = [\"sku\"]"], extra: "history_max_mib = 2\nhistory_cache_mib = 1")
        try await harness.startDaemon()
        let live = try await harness.subscribe("whole")
        #expect(try await live.receiveUntil { $0.mirror != nil })
        var mirrors = [try #require(live.mirror)]
        let epoch = mirrors[0].cursor.epoch
        let logPath = harness.path("state/whole/log")
        for version in 1...12 {
            try EndToEndTests.Subscribers.save(Self.wholeListVersion(version), to: file)
            #expect(try await live.receiveUntilMirroring(file, options: options, timeout: .seconds(30)))
            mirrors.append(try #require(live.mirror))
            // The log follows the publication: once it holds this version, check its bound.
            let size = try await Self.log(at: logPath, epoch: epoch, reaching: UInt64(version)).file.count
            #expect(size <= 2 << 20, "version \(version): the log holds \(size) bytes")
        }
        #expect(live.changesets.map(\.seq) == Array(1...12))

        // What the disk holds, and what memory (1 MiB of the newest lines) holds.
        let (log, lines) = try #require(try ChangesetLog.decode(try Self.contents(of: logPath), epoch: epoch, leadingTo: 12))
        #expect(log.lastSeq == 12)
        var cached = 0
        var oldestInMemory: UInt64 = 12
        for (offset, line) in lines.enumerated().reversed() {
            guard cached + line.count <= 1 << 20 || oldestInMemory == 12 && cached == 0 else { break }
            cached += line.count
            oldestInMemory = log.baseSeq + 1 + UInt64(offset)
        }
        #expect(log.baseSeq > 0, "the bound dropped the oldest changesets from the disk")
        try #require(log.baseSeq + 1 < oldestInMemory, "no changeset is on disk only: \(log.baseSeq) \(oldestInMemory)")

        // From the oldest cursor the disk can serve: resumed, its first changesets read from disk.
        let fromDisk = try await harness.subscribe("whole", mirror: mirrors[Int(log.baseSeq)])
        #expect(fromDisk.reply?.mode == .resume)
        #expect(fromDisk.reply?.reason == nil)
        #expect(try await fromDisk.receiveUntilMirroring(file, options: options, timeout: .seconds(30)))
        #expect(fromDisk.snapshots == 0)
        #expect(fromDisk.changesets.map(\.seq) == Array((log.baseSeq + 1)...12))
        #expect(fromDisk.changesetMessages == Array(live.changesetMessages[Int(log.baseSeq)...]), "the lines read back are the ones sent")
        #expect(try await harness.snapshot(of: "whole") == fromDisk.mirror?.document)

        // Older than the disk holds: a snapshot, with the reason.
        let tooOld = try await harness.subscribe("whole", mirror: mirrors[Int(log.baseSeq) - 1])
        #expect(tooOld.reply?.mode == .snapshot)
        #expect(tooOld.reply?.reason == .historyTrimmed)
        #expect(try await tooOld.receiveUntilMirroring(file, options: options, timeout: .seconds(30)))
        #expect(try await harness.snapshot(of: "whole") == tooOld.mirror?.document)

        // After a restart (memory refilled with the newest only), the same cursors get the same.
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let afterRestart = try await harness.subscribe("whole", mirror: mirrors[Int(log.baseSeq)])
        #expect(afterRestart.reply?.mode == .resume)
        #expect(try await afterRestart.receiveUntilMirroring(file, options: options, timeout: .seconds(30)))
        #expect(afterRestart.changesetMessages == fromDisk.changesetMessages)
        let stillTooOld = try await harness.subscribe("whole", mirror: mirrors[Int(log.baseSeq) - 1])
        #expect(stillTooOld.reply?.mode == .snapshot && stillTooOld.reply?.reason == .historyTrimmed)
        #expect(try await harness.stopDaemon() == 0)
    }
}
