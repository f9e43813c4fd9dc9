import Foundation
import ListSyncTestSupport
import Testing

@testable import ListSyncBenchmarks

/// The latency benchmark's large workload on a small file, against the real (debug) listsyncd:
/// at spread places, on a daemon that read the file and on one restarted after `SIGKILL` and
/// after `SIGTERM`. Nothing is timed: each run must complete, every edit must reach the plain
/// subscriber and the `ListSyncClient` mirror (each changeset applied with its digest verified,
/// no resync), and a restarted daemon must serve the version it saved.
@Suite(.serialized, .timeLimit(.minutes(5))) struct LatencyRestartEditsTests {
    static func benchmark(in scratch: ScratchDirectory) throws -> LatencyBenchmark {
        LatencyBenchmark(
            listsyncd: URL(fileURLWithPath: try BuiltProducts.path("listsyncd")), directory: URL(fileURLWithPath: scratch.path),
            settle: .milliseconds(20))
    }

    @Test(arguments: [LatencyBenchmark.Start.firstLoad, .restarted(.kill), .restarted(.term)], [LatencyFile.Format.csv, .ndjson])
    func spreadEditsReachTheSubscriberAndTheMirror(start: LatencyBenchmark.Start, format: LatencyFile.Format) async throws {
        let scratch = try ScratchDirectory(prefix: "lsb")
        let results = try await Self.benchmark(in: scratch).measure(
            rows: 20_000, edits: 4, workload: "test", bar: "—", withMirror: true, format: format, places: .spread, start: start)
        #expect(results.count == 2)
        let plain = try #require(results.first)
        #expect(plain.samples.count == 4)
        #expect(plain.daemonCPUPerEdit?.count == 4)
        #expect(plain.lineCount?.isEmpty == false)
        #expect((plain.residentAfterLoad ?? 0) > 0 && (plain.peakAtLoad ?? 0) >= (plain.residentAfterLoad ?? 0))
        #expect((plain.peakOverEdits ?? 0) > 0)
        #expect(results.last?.samples.count == 4, "the mirror applied every changeset")
    }

    /// A restart stops the daemon that served the file with the signal asked for and starts
    /// another on its state directory, which serves the saved version (``LatencyBenchmark/startDaemon(in:watching:format:start:)``
    /// checks its cursor): two daemons in one log, the first ended in order only by `SIGTERM`.
    @Test(arguments: [LatencyDaemon.Stop.kill, .term])
    func aRestartStopsTheDaemonWithItsSignalAndStartsAnother(stop: LatencyDaemon.Stop) async throws {
        let scratch = try ScratchDirectory(prefix: "lsb")
        let directory = URL(fileURLWithPath: scratch.path)
        let file = try LatencyFile(url: directory.appendingPathComponent("products.csv"), rows: 1_000)
        let restarted = try await Self.benchmark(in: scratch).startDaemon(in: directory, watching: file.url, format: .csv, start: .restarted(stop))
        #expect(restarted.servedCursor != nil)
        restarted.stop()
        let log = try String(contentsOfFile: scratch.path("listsyncd.log"), encoding: .utf8)
        // Lines whose message is `message` (after the logger's label: not "already …").
        func count(_ message: String) -> Int { log.split(separator: "\n").filter { $0.contains("[listsyncd] \(message)") }.count }
        #expect(count("ready") == 2, "\(log)")
        #expect(count("shutting down") == (stop == .term ? 2 : 1), "\(log)")
    }
}
