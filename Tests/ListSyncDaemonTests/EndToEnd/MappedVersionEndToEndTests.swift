import Glibc
import ListFormats
import ListSyncTestSupport
import Testing

extension EndToEndTests {
    /// Issue 19: once a version is saved, the daemon holds its bytes as read-only mappings of the
    /// watch's state files (a checkpoint slot, the delta journal's records) rather than in
    /// anonymous memory. Over one-row saves of a 1 MB list and now and then a change of a third of
    /// it — each followed by a full checkpoint, which writes a slot other versions' bytes were
    /// mapped from again — the daemon maps its state files, and after every save `listsync
    /// snapshot` prints the file and the mirror holds it.
    @Suite struct MappedVersions {
        /// The lines of the daemon's `/proc/PID/maps` that map a file under `directory`.
        static func mappings(of pid: pid_t, under directory: String) throws -> [String] {
            try FileContent.read("/proc/\(pid)/maps").split(separator: "\n").map(String.init).filter { $0.contains(directory + "/") }
        }

        /// Stops the harness's daemon: `SIGKILL` when `killed`, else cleanly; checks how it ended.
        static func stop(_ harness: DaemonHarness, killed: Bool) async throws {
            if killed {
                harness.daemon?.send(SIGKILL)
                #expect(try await harness.daemon?.exited() == 128 + SIGKILL)
            } else {
                #expect(try await harness.stopDaemon() == 0)
            }
        }

        /// Row `index` of the tests' CSV list (`sku,name,price`), as edit `version` leaves it.
        static func row(_ index: Int, version: Int = 0) -> String { "SKU\(index),item \(index),\(index % 997).\(version)" }

        /// The CSV text of `rows`.
        static func text(_ rows: [String]) -> String { "sku,name,price\n" + rows.map { $0 + "\n" }.joined() }

        /// A daemon watching `list.csv`, written with `rows`, as `list` keyed by `sku`, with its
        /// state saved, and a `listsync mirror` of it to `list.json`: both started, after
        /// `preparing` the harness (a state directory on a small file system).
        static func startWatch(
            of rows: [String], preparing: (DaemonHarness) throws -> Void = { _ in }
        ) async throws -> (harness: DaemonHarness, file: String, mirror: EndToEndTests.Persistence.StormClient) {
            let harness = try DaemonHarness()
            try preparing(harness)
            let file = harness.path("list.csv")
            try FileOperations.write(Self.text(rows), to: file)
            try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\nkey = [\"sku\"]"])
            try await harness.startDaemon()
            let mirror = EndToEndTests.Persistence.StormClient(
                ["mirror", "list", "--socket", harness.socketPath, "--output", harness.path("list.json")], logPath: harness.path("list.mirror.log"))
            try mirror.start()
            return (harness, file, mirror)
        }

        @Test func savedVersionsAreServedFromTheStateFiles() async throws {
            var rows = (0..<40_000).map { Self.row($0) }
            func text() -> String { Self.text(rows) }
            let (harness, file, mirror) = try await Self.startWatch(of: rows)
            var random = SplitMix(seed: 23)
            var mappedSlots = Set<String>()
            for step in 0..<24 {
                if step % 6 == 5 {
                    // A third of the rows: its journal record outweighs a quarter of the list, so a
                    // full checkpoint follows, over the slot older versions were mapped from.
                    let start = Int.random(in: 0..<(rows.count - 14_000), using: &random)
                    for index in start..<(start + 14_000) { rows[index] = Self.row(index, version: step + 1) }
                } else {
                    let edited = Int.random(in: 0..<rows.count, using: &random)
                    rows[edited] = Self.row(edited, version: step + 1)
                }
                try EndToEndTests.Subscribers.save(text(), to: file)
                try #require(
                    try await SharingReads.converged(harness, "list", file: file, options: SharingReads.options, mirror: harness.path("list.json")),
                    "step \(step)\n\(harness.log.suffix(2000))\n\(mirror.log.suffix(1000))")
                let pid = try #require(harness.daemon?.pid)
                let mapped = try Self.mappings(of: pid, under: harness.path("state"))
                #expect(!mapped.isEmpty, "step \(step): no state file is mapped")
                for line in mapped {
                    if let name = line.split(separator: "/").last, name.hasPrefix("checkpoint.") { mappedSlots.insert(String(name)) }
                }
            }
            // Full checkpoints wrote both slots, and versions were mapped from each.
            #expect(mappedSlots.contains { $0.hasPrefix("checkpoint.0") } && mappedSlots.contains { $0.hasPrefix("checkpoint.1") }, "\(mappedSlots)")
            try await mirror.kill()
            #expect(try await harness.stopDaemon() == 0)
        }
    }
}
