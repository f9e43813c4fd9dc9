import Glibc
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Testing

/// A save that changes every row of a list (issue 19): the daemon's peak resident memory over
/// that save grows by a few times the file, not by tens of times (it held the changeset as values,
/// as stages' JSON grown by doubling, as the line, and each version 2 subscriber a copy of the line
/// in parts); a raw version 2 subscriber and `listsync mirror` both end equal to `listsync snapshot`.
extension EndToEndTests.Load {
    static let everyRowCount = 40_000

    /// `id,name`, every row's name naming the version.
    static func everyRowList(_ version: Int) -> String {
        "id,name\n" + (0..<Self.everyRowCount).map { "\($0),row \($0) with a name of some length in version \(version)\n" }.joined()
    }

    /// A daemon watching `rows.csv` (``everyRowList(_:)`` version 0) as `rows`, keyed by `id`,
    /// started; the file's path and how the tests read it.
    static func startEveryRowWatch() async throws -> (harness: DaemonHarness, file: String, options: ReadOptions) {
        let harness = try DaemonHarness()
        let file = harness.path("rows.csv")
        try FileOperations.write(Self.everyRowList(0), to: file)
        try harness.writeConfig(["name = \"rows\"\npath = \"rows.csv\"\nkey = [\"id\"]"])
        try await harness.startDaemon()
        return (harness, file, ReadOptions(format: .csv(delimiter: .comma), key: ["id"]))
    }

    @Test func aChangeOfEveryRowGrowsTheDaemonByAFewTimesTheFile() async throws {
        let (harness, file, options) = try await Self.startEveryRowWatch()
        let daemon = try #require(harness.daemon)
        let raw = try await harness.subscribe("rows", protocols: [1, 2])
        #expect(raw.digestVersion == .v2)
        #expect(try await raw.receiveUntil(timeout: .seconds(60)) { $0.mirror != nil })
        let output = harness.path("mirror.json")
        let mirror = try harness.startMirror(of: "rows", output: output)
        defer { mirror.send(SIGTERM) }
        #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "rows", timeout: .seconds(60)), "\(mirror.log)")

        try daemon.resetPeakMemory()
        let before = try daemon.memoryKiB("VmRSS")
        let text = Self.everyRowList(1)
        try EndToEndTests.Subscribers.save(text, to: file)
        #expect(try await raw.receiveUntilMirroring(file, options: options, timeout: .seconds(120)))
        #expect(try await harness.waitUntilFile(output, matchesSnapshotOf: "rows", timeout: .seconds(60)), "\(mirror.log)")
        // Read before the snapshots compared next, which the daemon encodes too.
        let growthKiB = try daemon.memoryKiB("VmHWM") - before

        #expect(raw.changesetMessages.map(\.cursor.seq) == [1])
        #expect(raw.changesetParts.count > 10, "a changeset of every row comes in parts")
        #expect(try await harness.snapshot(of: "rows") == raw.mirror?.document)
        #expect(!mirror.log.contains("resync"), "\(mirror.log)")
        // The line of every row is ~2.5 times this file (each row's `at`, `key`, `hash` and
        // value as JSON), a mapping the history and the state store share; the new version's
        // bytes, records and diff come on top. Measured (debug build, 28 Nov 2026): 9,208 KiB,
        // 4.25× the file, once the line is written to a file as it is encoded and served from its
        // mapping (``ChangesetLineSpool``, session el, load 11–15); 13,688 KiB,
        // 6.3× the file; 19.7–20.2 MB, 9.1–9.3×, while the history held a copy of the line;
        // 46.3–46.4 MB, 21.4×, before the changeset was written from the records' bytes and cut
        // into parts as they are sent.
        let fileKiB = text.utf8.count >> 10
        #expect(growthKiB <= Self.everyRowGrowthBound * fileKiB, "peak RSS grew by \(growthKiB) KiB, the file is \(fileKiB) KiB")
        #expect(try await harness.stopDaemon() == 0)
    }

    /// How many times the file the daemon's peak may grow by over the save.
    static let everyRowGrowthBound = 5
}
