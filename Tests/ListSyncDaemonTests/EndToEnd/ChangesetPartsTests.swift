import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// Protocol version 2 cuts a changeset over 256 KiB into parts (docs/PROTOCOL.md, *Changeset
/// parts*): a version 2 subscriber gets a rewrite of every row of a 20,000-row list as several
/// lines, each within the bound but for its last entry, and a version 1 subscriber gets the same
/// changeset as one line; `listsync mirror` (the Swift client library, which puts parts back
/// together) equals `listsync snapshot`; and a client resuming across a restart gets the parts
/// cut from the changesets read back from disk.
extension EndToEndTests.Persistence {
    static let partRows = 20_000
    /// The bound of a part's line, and room for the one entry (a row: `at`, `key`, `hash`,
    /// `value`, about 150 bytes) that may take it over.
    static let partBound = 256 << 10
    static let entryRoom = 1024

    /// Checks the parts of changeset `seq` among `parts`: numbered from 0, the last alone `last`
    /// and with the digest, each line within the bound; returns how many.
    static func checkParts(_ parts: [ChangesetPartMessage], seq: UInt64) -> Int {
        let ofSeq = parts.filter { $0.cursor.seq == seq }
        #expect(ofSeq.map(\.part) == Array(0..<ofSeq.count), "parts of \(seq) in order")
        #expect(ofSeq.map(\.last) == Array(repeating: false, count: max(0, ofSeq.count - 1)) + [true])
        #expect(ofSeq.dropLast().allSatisfy { $0.digest == nil } && ofSeq.last?.digest != nil)
        for part in ofSeq {
            #expect(part.lineLength > 0 && part.lineLength <= Self.partBound + Self.entryRoom, "part \(part.part) of \(seq): \(part.lineLength) bytes")
        }
        return ofSeq.count
    }

    @Test func aLargeChangesetReachesAVersion2ClientInPartsAndAVersion1ClientWhole() async throws {
        let harness = try DaemonHarness()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let file = harness.path("whole.csv")
        try FileOperations.write(Self.wholeListVersion(0, rows: Self.partRows), to: file)
        // 1 MiB of history in memory: an older changeset of ~3 MB is then on disk only.
        try harness.writeConfig(["name = \"whole\"\npath = \"whole.csv\"\nkey = [\"sku\"]"], extra: "history_cache_mib = 1")
        try await harness.startDaemon()
        let v2 = try await harness.subscribe("whole", protocols: [1, 2])
        let v1 = try await harness.subscribe("whole", protocols: [1])
        #expect(v2.digestVersion == .v2 && v1.digestVersion == .v1)
        #expect(try await v2.receiveUntil(timeout: .seconds(60)) { $0.mirror != nil })
        #expect(try await v1.receiveUntil(timeout: .seconds(60)) { $0.mirror != nil })
        let atZero = try #require(v2.mirror)
        let output = harness.path("mirror.json")
        let mirror = try harness.startMirror(of: "whole", output: output)
        defer { mirror.send(SIGTERM) }
        #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "whole", timeout: .seconds(60)), "\(mirror.log)")

        for version in 1...2 {
            try EndToEndTests.Subscribers.save(Self.wholeListVersion(version, rows: Self.partRows), to: file)
            #expect(try await v2.receiveUntilMirroring(file, options: options, timeout: .seconds(60)))
            #expect(try await v1.receiveUntilMirroring(file, options: options, timeout: .seconds(60)))
            #expect(Self.checkParts(v2.changesetParts, seq: UInt64(version)) >= 4, "a ~3 MB changeset in parts of 256 KiB")
        }
        // The version 1 client got each changeset as one line, of more than the bound; the same
        // changeset but for the digest.
        #expect(v1.changesetParts.isEmpty && v1.changesetMessages.count == 2)
        #expect(v2.changesetMessages.count == 2)
        for (old, new) in zip(v1.changesetMessages, v2.changesetMessages) {
            #expect(ServerMessage.changeset(old).encoded().count > Self.partBound)
            var same = new
            same.digest = old.digest
            #expect(same == old)
        }
        #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "whole", timeout: .seconds(60)), "\(mirror.log)")
        #expect(try await harness.snapshot(of: "whole") == v2.mirror?.document)
        #expect(!mirror.log.contains("resync"), "\(mirror.log)")

        // After a restart, from version 0: version 1's changeset comes back from the disk (the
        // memory keeps the newest 1 MiB, always the newest line), in the same parts.
        #expect(try await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let resumed = try await harness.subscribe("whole", mirror: atZero, protocols: [1, 2])
        #expect(resumed.reply?.mode == .resume)
        #expect(try await resumed.receiveUntilMirroring(file, options: options, timeout: .seconds(60)))
        #expect(resumed.snapshots == 0)
        #expect(resumed.changesetMessages == v2.changesetMessages, "the changesets read back are the ones sent")
        #expect(resumed.changesetParts == v2.changesetParts, "cut into the same parts")
        #expect(try await harness.stopDaemon() == 0)
    }
}
