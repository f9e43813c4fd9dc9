import Glibc
import ListSyncTestSupport
import Testing

extension EndToEndTests {
    /// Issue 19: the daemon serves saved versions from mappings of its state files. A state file
    /// cut short by another process while mapped ends the daemon with `SIGBUS` at the next read
    /// of it; its log says so (not a silent death), and the next start moves the damaged file
    /// aside and serves the list again.
    @Suite struct StateFileBusError {
        @Test func aStateFileCutShortUnderItsMappingIsReportedAndTheNextStartRecovers() async throws {
            let harness = try DaemonHarness()
            let file = harness.path("list.csv")
            let text = "sku,name\n" + (0..<20_000).map { "SKU\($0),item \($0)\n" }.joined()
            try FileOperations.write(text, to: file)
            try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\nkey = [\"sku\"]"])
            try await harness.startDaemon()
            let before = try #require(try await harness.snapshot(of: "list"))
            #expect(before.allRecords.count == 20_000)
            let daemon = try #require(harness.daemon)
            let slot = try #require(
                try MappedVersions.mappings(of: daemon.pid, under: harness.path("state")).lazy.compactMap { line in
                    line.split(separator: " ").last.map(String.init)
                }.first { $0.contains("/checkpoint.") },
                "no checkpoint slot is mapped")

            // Another process cuts the mapped slot short; a snapshot reads the version's bytes.
            guard truncate(slot, 0) == 0 else { throw TestFailure(description: "truncate \(slot): errno \(errno)") }
            _ = try? await harness.snapshot(of: "list")
            let status = try await daemon.exited(timeout: .seconds(30))
            #expect(status == 128 + SIGBUS, "\(harness.log.suffix(2000))")
            #expect(harness.log.contains("listsyncd: fatal: SIGBUS at address 0x"), "\(harness.log.suffix(2000))")
            #expect(harness.log.contains("another process cut the file short"), "\(harness.log.suffix(2000))")

            try await harness.startDaemon()
            let after = try #require(try await harness.snapshot(of: "list"))
            #expect(after.allRecords.count == 20_000)
            #expect(harness.log.contains("moved aside"), "\(harness.log.suffix(2000))")
            #expect(try await harness.stopDaemon() == 0)
        }
    }
}
