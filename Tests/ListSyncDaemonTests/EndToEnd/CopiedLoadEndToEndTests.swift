import Glibc
import ListFormats
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

extension EndToEndTests.MappedVersions {
    /// The daemon's anonymous memory (`RssAnon` of `/proc/PID/status`), in bytes.
    static func anonymousBytes(of pid: pid_t) -> Int? {
        guard let status = try? FileContent.read("/proc/\(pid)/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("RssAnon:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// Issue 19, the first load: with state saved, the first version is copied into its checkpoint
    /// slot inside the kernel as it is read, and parsed (and its checksum taken) from a mapping of
    /// the copy, the pages let go of as the parse goes — never whole in anonymous memory. A daemon
    /// of a 44 MiB NDJSON list (400-byte rows: the records take a tenth of it) is held once the
    /// version is parsed, before its slot is finished (`checkpoint-started`, 4 s): its anonymous
    /// memory, sampled across the load, stays under half the file (9 MiB for the 44 MiB file in a
    /// debug build; 55 MiB when the file is read into memory, as before), and the slot is mapped;
    /// killed (`SIGKILL`) and started again, it serves the version mapped from the slot.
    @Test func aFirstLoadIsParsedFromItsSlotNeverWholeInAnonymousMemory() async throws {
        let harness = try DaemonHarness()
        let file = harness.path("list.ndjson")
        let padding = String(repeating: "x", count: 340)
        func row(_ index: Int, version: Int = 0) -> String { #"{"id":\#(index),"name":"item \#(index)","v":\#(version),"text":"\#(padding)"}"# }
        var rows = (0..<120_000).map { row($0) }
        func text() -> String { rows.map { $0 + "\n" }.joined() }
        try FileOperations.write(text(), to: file)
        let size = text().utf8.count
        try harness.writeConfig(["name = \"list\"\npath = \"\(file)\"\nkey = [\"id\"]"])
        try await harness.startDaemon(environment: [StateCrashPoints.holdVariable: "checkpoint-started:4000:1"], waitingUntilLoaded: false)
        let pid = try #require(harness.daemon?.pid)
        let sampler = Task {
            var peak = 0
            while !Task.isCancelled {
                peak = max(peak, Self.anonymousBytes(of: pid) ?? 0)
                try? await Task.sleep(for: .milliseconds(20))
            }
            return peak
        }
        try await harness.watchesLoaded()
        sampler.cancel()
        let peak = await sampler.value
        let served = try #require(Self.anonymousBytes(of: pid))
        #expect(peak < size / 2, "anonymous memory while loading \(peak >> 20) MiB, once served \(served >> 20) MiB, the file \(size >> 20) MiB")
        #expect(try Self.mappings(of: pid, under: harness.path("state")).contains { $0.hasSuffix("/checkpoint.0") })

        // A restart after a SIGKILL restores it from the slot, mapped (what is served is checked
        // by the other tests of mapped versions, which go through the same copy and restore).
        harness.daemon?.send(SIGKILL)
        #expect(try await harness.daemon?.exited() == 128 + SIGKILL)
        try await harness.startDaemon()
        let restarted = try #require(harness.daemon?.pid)
        #expect(try Self.mappings(of: restarted, under: harness.path("state")).contains { $0.hasSuffix("/checkpoint.0") })
        #expect(try await harness.stopDaemon() == 0)
    }
}
