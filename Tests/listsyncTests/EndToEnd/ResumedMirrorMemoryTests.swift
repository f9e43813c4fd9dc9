import Testing
import ListSyncTestSupport

extension CommandEndToEnd {
    /// A `mirror` restarted over its output and state holds the large list no more often than
    /// the run that first wrote them: it replays its journal and writes FILE from it, then
    /// resumes.
    @Suite struct ResumedMirrorMemoryTests {
        /// Rows of the list (16 MB of CSV): large enough that the list outweighs what any client
        /// costs whatever the list (the binary, a chunk in flight), yet seconds in a debug build.
        static let rows = 200_000

        /// The peak memory (maximum resident set, KiB, GNU time's `%M`) of `listsync mirror big
        /// --output mirror.csv --once`, which must exit 0.
        static func mirrorOncePeakKiB(in harness: EndToEndHarness, run: String) async throws -> Int {
            let report = harness.path("peak-\(run).txt")
            let client = try harness.process(
                "/usr/bin/time",
                ["-f", "%M", "-o", report, try EndToEndHarness.binary("listsync"), "mirror", "big", "--socket", harness.socketPath,
                 "--output", harness.path("mirror.csv"), "--once"])
            let status = try await client.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "\(run): \(client.errorOutput)")
            let text = try FileContent.read(report)
            guard let peak = Int(text.split(separator: "\n").last ?? "") else { throw TestFailure("GNU time reported \(text)") }
            return peak
        }

        /// A second `mirror --once` over the first one's output and state (a user restarting the
        /// mirror of a large list) peaks no higher than the first, plus a quarter of the file's
        /// size for the allocator's slack, and leaves FILE the list byte for byte. Before, it
        /// held the list three times over — the state file's bytes read whole, the list replayed
        /// from them, and FILE's bytes made whole — and peaked at about twice the first run
        /// (1.2 GB against 625 MiB for a 1M-row list of 79 MiB).
        @Test func aResumedMirrorPeaksNoHigherThanTheFirstRun() async throws {
            let harness = try EndToEndHarness(watches: [EndToEndHarness.Watch(name: "big", file: "big.csv", key: ["id"], sectionBy: nil)])
            try FileContent.write(LargeSnapshotTests.csv(rows: Self.rows), to: harness.path("big.csv"))
            try await harness.startDaemon()
            let file = try FileContent.read(harness.path("big.csv"))
            let first = try await Self.mirrorOncePeakKiB(in: harness, run: "first")
            #expect(try FileContent.read(harness.path("mirror.csv")) == file, "the first run writes the list")
            // The restart must write FILE from its state: make it stale.
            try FileContent.write("id\nstale\n", to: harness.path("mirror.csv"))
            let second = try await Self.mirrorOncePeakKiB(in: harness, run: "second")
            #expect(try FileContent.read(harness.path("mirror.csv")) == file, "the resumed run writes the list byte for byte")
            #expect(
                second * 1024 <= first * 1024 + file.utf8.count / 4,
                "resumed peak \(second) KiB, first run's \(first) KiB, file \(file.utf8.count / 1024) KiB")
        }
    }
}
