import Foundation
import ListSyncTestSupport
import Testing
@testable import ListSyncDaemon

/// The series of a watch started again under the same name follow its new state directory.
@Suite struct DaemonMetricsWatchTests {
    @Test func aWatchStartedAgainWithAnotherStateDirectoryIsMeasuredThere() throws {
        let scratch = try ScratchDirectory()
        let (old, new) = (scratch.path("old"), scratch.path("new"))
        for (directory, bytes) in [(old, 10), (new, 1234)] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try FileOperations.write(String(repeating: "x", count: bytes), to: directory + "/log")
        }
        let metrics = DaemonMetrics(clientBufferBudget: 1 << 20)
        let first = metrics.watch(named: "list", stateDirectory: old)
        first.versions.increment()
        let again = metrics.watch(named: "list", stateDirectory: new)
        let text = String(decoding: metrics.exposition(keptChangesets: [(watch: again, count: 0)], clientBufferBytes: 0), as: UTF8.self)
        let exposition = try EndToEndTests.Metrics.Exposition(text)
        #expect(exposition[#"listsync_state_bytes{watch="list"}"#] == 1234, "\(text)")
        #expect(exposition[#"listsync_watch_versions_total{watch="list"}"#] == 0, "the earlier watch's counts are not this one's")
        // Removed, its series are gone, every one of them.
        metrics.removeWatch(named: "list")
        let empty = String(decoding: metrics.exposition(keptChangesets: [], clientBufferBytes: 0), as: UTF8.self)
        #expect(!empty.contains(#"watch="list""#), "\(empty)")
    }
}
