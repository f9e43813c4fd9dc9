import Glibc
import ListFormats
import ListSyncTestSupport
import Testing

extension EndToEndTests.MappedVersions {
    /// The lines of the daemon's `/proc/PID/smaps` that head a mapping of a file under `directory`.
    static func smapsMappings(of pid: pid_t, under directory: String) throws -> [String] {
        try FileContent.read("/proc/\(pid)/smaps").split(separator: "\n").map(String.init).filter { $0.contains(directory + "/") }
    }

    /// Issue 19, after a restart: the restored version is held as mappings of the state files it
    /// was rebuilt from (the newest slot, the journal's records after it), not in anonymous
    /// memory until the next full checkpoint. A daemon of a 3 MB list, killed (`SIGKILL`) and
    /// later stopped cleanly, maps its state files as soon as it has restored the list — before
    /// any edit — and after the one-row saves that follow each restart, `listsync snapshot`
    /// prints the file and the mirror holds it.
    @Test func aRestartedDaemonServesItsRestoredVersionFromTheStateFiles() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("list.csv")
        func row(_ index: Int, version: Int = 0) -> String { "SKU\(index),item \(index),\(index % 997).\(version)" }
        var rows = (0..<110_000).map { row($0) }
        func text() -> String { "sku,name,price\n" + rows.map { $0 + "\n" }.joined() }
        try FileOperations.write(text(), to: file)
        try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\nkey = [\"sku\"]"])
        try await harness.startDaemon()
        let mirror = EndToEndTests.Persistence.StormClient(
            ["mirror", "list", "--socket", harness.socketPath, "--output", harness.path("list.json")], logPath: harness.path("list.mirror.log"))
        try mirror.start()
        let state = harness.path("state")
        var random = SplitMix(seed: 37)
        var step = 0
        func oneRowSaves(_ count: Int, _ label: String) async throws {
            for _ in 0..<count {
                step += 1
                let edited = Int.random(in: 0..<rows.count, using: &random)
                rows[edited] = row(edited, version: step)
                try EndToEndTests.Subscribers.save(text(), to: file)
                try #require(
                    try await EndToEndTests.SharingReads.converged(
                        harness, "list", file: file, options: EndToEndTests.SharingReads.options, mirror: harness.path("list.json")),
                    "\(label), step \(step)\n\(harness.log.suffix(2000))\n\(mirror.log.suffix(1000))")
                let pid = try #require(harness.daemon?.pid)
                #expect(!(try Self.smapsMappings(of: pid, under: state)).isEmpty, "\(label), step \(step): no state file is mapped")
            }
        }
        try await oneRowSaves(3, "before any restart")
        for (restart, killed) in [(1, true), (2, false), (3, true)] {
            let label = "restart \(restart) (\(killed ? "killed" : "stopped cleanly"))"
            if killed {
                harness.daemon?.send(SIGKILL)
                #expect(try await harness.daemon?.exited() == 128 + SIGKILL)
            } else {
                #expect(try await harness.stopDaemon() == 0)
            }
            try await harness.startDaemon()
            try mirror.start()
            let pid = try #require(harness.daemon?.pid)
            // Restored, not yet edited: the restored version's bytes are the slot's (and the
            // journal records') mapped.
            let mapped = try Self.smapsMappings(of: pid, under: state)
            #expect(mapped.contains { $0.hasSuffix("/checkpoint.0") || $0.hasSuffix("/checkpoint.1") }, "\(label): no slot is mapped: \(mapped)")
            try #require(
                try await EndToEndTests.SharingReads.converged(
                    harness, "list", file: file, options: EndToEndTests.SharingReads.options, mirror: harness.path("list.json")),
                "\(label)\n\(harness.log.suffix(2000))\n\(mirror.log.suffix(1000))")
            try await oneRowSaves(3, label)
        }
        try await mirror.kill()
        #expect(try await harness.stopDaemon() == 0)
    }
}
