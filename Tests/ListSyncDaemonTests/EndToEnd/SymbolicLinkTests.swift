import ListFormats
import Testing
@testable import ListSyncDaemon

extension EndToEndTests {
    /// Watched paths through symbolic links: edits of what a link points to, and swaps of the
    /// link, reach a subscriber as fast as edits of a regular file — by inotify, not by the
    /// reconciliation, which these daemons run only once a minute. Alone, as the settling tests
    /// are: their latencies are timed, and another daemon beside them would slow both.
    @Suite(.alone) struct SymbolicLinks {}
}

extension EndToEndTests.SymbolicLinks {
    /// The quick tunables with the reconciliation out of the way.
    private static let tunables = DaemonHarness.tunables.replacingOccurrences(of: "reconcile_interval_ms = 1000", with: "reconcile_interval_ms = 60000")

    /// Far below the reconciliation (a minute), above a loaded machine's settling (about 20 ms
    /// idle; over 500 ms seen with every other suite beside it at a load of 16).
    private static let bound = Duration.seconds(3)

    /// Starts a daemon watching `path` (a CSV keyed by `sku`), applies each step and measures how
    /// long the subscriber's mirror takes to equal the file again.
    private func expectFollowed(
        _ harness: DaemonHarness, path: String, steps: [(String, () throws -> Void)], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try harness.writeConfig(["name = \"list\"\npath = \"\(path)\"\nkey = [\"sku\"]"], tunables: Self.tunables)
        try await harness.startDaemon()
        let options = ReadOptions(format: .csv(delimiter: .comma), key: ["sku"])
        let subscriber = try await harness.subscribe("list")
        #expect(try await subscriber.receiveUntilMirroring(path, options: options), sourceLocation: sourceLocation)
        var latencies: [String: Duration] = [:]
        for (name, step) in steps {
            let started = ContinuousClock.now
            try step()
            #expect(try await subscriber.receiveUntilMirroring(path, options: options, timeout: .seconds(10)), "\(name)\n\(harness.log)", sourceLocation: sourceLocation)
            latencies[name] = ContinuousClock.now - started
        }
        #expect(latencies.values.allSatisfy { $0 < Self.bound }, "latencies: \(latencies)", sourceLocation: sourceLocation)
        #expect(try await harness.stopDaemon() == 0, sourceLocation: sourceLocation)
    }

    @Test func editsAndSwapsOfALinkedFileArePublishedAtOnce() async throws {
        let harness = try DaemonHarness()
        for directory in ["watched", "elsewhere"] {
            try FileOperations.makeDirectory(harness.path(directory))
        }
        try FileOperations.write(Lists.catalogue(0), to: harness.path("elsewhere/one.csv"))
        try FileOperations.write(Lists.catalogue(1), to: harness.path("elsewhere/two.csv"))
        let link = harness.path("watched/list.csv")
        try FileOperations.symlink("../elsewhere/one.csv", at: link)
        try await self.expectFollowed(harness, path: link, steps: [
            ("edit the target", { try FileOperations.write(Lists.catalogue(2), to: harness.path("elsewhere/one.csv")) }),
            ("swap the link", { try FileOperations.replaceSymlink(link, with: "../elsewhere/two.csv") }),
            ("edit the new target", { try FileOperations.write(Lists.catalogue(3), to: harness.path("elsewhere/two.csv")) }),
        ])
    }

    @Test func editsAndSwapsOfALinkedDirectoryArePublishedAtOnce() async throws {
        let harness = try DaemonHarness()
        for (index, release) in ["rel1", "rel2"].enumerated() {
            try FileOperations.makeDirectory(harness.path(release))
            try FileOperations.write(Lists.catalogue(index), to: harness.path("\(release)/list.csv"))
        }
        try FileOperations.symlink("rel1", at: harness.path("current"))
        try await self.expectFollowed(harness, path: harness.path("current/list.csv"), steps: [
            ("edit in the current release", { try FileOperations.write(Lists.catalogue(2), to: harness.path("rel1/list.csv")) }),
            ("swap the release", { try FileOperations.replaceSymlink(harness.path("current"), with: "rel2") }),
            ("edit in the new release", { try FileOperations.write(Lists.catalogue(3), to: harness.path("rel2/list.csv")) }),
        ])
    }
}
