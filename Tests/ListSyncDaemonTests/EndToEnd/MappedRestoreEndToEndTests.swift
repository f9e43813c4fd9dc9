import Glibc
import ListFormats
import ListSyncTestSupport
import Testing

extension EndToEndTests.MappedVersions {
    /// Issue 19, after a restart: the restored version is held as mappings of the state files it
    /// was rebuilt from (the newest slot, the journal's records after it), not in anonymous
    /// memory until the next full checkpoint. A daemon of a 3 MB list, killed (`SIGKILL`) and
    /// later stopped cleanly, maps its state files as soon as it has restored the list — before
    /// any edit — and after the one-row saves that follow each restart, `listsync snapshot`
    /// prints the file and the mirror holds it.
    @Test func aRestartedDaemonServesItsRestoredVersionFromTheStateFiles() async throws {
        var rows = (0..<110_000).map { Self.row($0) }
        func text() -> String { Self.text(rows) }
        let (harness, file, mirror) = try await Self.startWatch(of: rows)
        let state = harness.path("state")
        var random = SplitMix(seed: 37)
        var step = 0
        func oneRowSaves(_ count: Int, _ label: String) async throws {
            for _ in 0..<count {
                step += 1
                let edited = Int.random(in: 0..<rows.count, using: &random)
                rows[edited] = Self.row(edited, version: step)
                try EndToEndTests.Subscribers.save(text(), to: file)
                try #require(
                    try await EndToEndTests.SharingReads.converged(
                        harness, "list", file: file, options: EndToEndTests.SharingReads.options, mirror: harness.path("list.json")),
                    "\(label), step \(step)\n\(harness.log.suffix(2000))\n\(mirror.log.suffix(1000))")
                let pid = try #require(harness.daemon?.pid)
                #expect(!(try Self.mappings(of: pid, under: state)).isEmpty, "\(label), step \(step): no state file is mapped")
            }
        }
        try await oneRowSaves(3, "before any restart")
        for (restart, killed) in [(1, true), (2, false), (3, true)] {
            let label = "restart \(restart) (\(killed ? "killed" : "stopped cleanly"))"
            try await EndToEndTests.MappedVersions.stop(harness, killed: killed)
            try await harness.startDaemon()
            try mirror.start()
            let pid = try #require(harness.daemon?.pid)
            // Restored, not yet edited: the restored version's bytes are the slot's (and the
            // journal records') mapped.
            let mapped = try Self.mappings(of: pid, under: state)
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
