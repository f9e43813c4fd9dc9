import Glibc
import Testing
@testable import ListSyncDaemon

extension FileWatcherTests {
    /// Files a writer keeps open or keeps changing: announced only when complete, at least every
    /// ``FileWatcher/Configuration/maximumSettleDelay``, and at the writer bound when never closed.
    @Suite struct Settling {}
}

extension FileWatcherTests.Settling {
    /// Version `number` of a file whose every version has its own length and ends with `end`.
    private static func version(_ number: Int) -> String {
        "v\(number):" + String(repeating: "x", count: 200 + number % 50) + ":end\n"
    }

    @Test func aFileWrittenHalfThenPausedIsAnnouncedOnlyWhenClosed() async throws {
        try await WatcherHarness.run { harness in
            let file = try await harness.watchNewFile("list.json", containing: "[1]")
            let before = harness.observations(of: file).count
            // The pause is longer than every settle delay: only the open writer holds it back.
            try FileOperations.write(["[1,", "2]"], to: file, pause: .milliseconds(600))
            await harness.expectSettled(file, at: .content("[1,2]"))
            #expect(Array(harness.observations(of: file).dropFirst(before)) == [.content("[1,2]")])
        }
    }

    @Test func aFileHeldOpenIsAnnouncedAtTheWriterBound() async throws {
        var configuration = WatcherHarness.fastConfiguration
        configuration.maximumWaitForWriter = .milliseconds(400)
        try await WatcherHarness.run(configuration: configuration) { harness in
            let file = try await harness.watchNewFile("log.ndjson", containing: "")
            let descriptor = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            let line = Array("{\"n\":1}\n".utf8)
            let started = ContinuousClock.now
            #expect(line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == line.count)
            let seen = await harness.waitUntil { harness.observations(of: file).last == .content("{\"n\":1}\n") }
            let waited = ContinuousClock.now - started
            #expect(seen, "never announced: \(harness.observations(of: file))")
            #expect(waited >= .milliseconds(350), "announced after \(waited), while the writer still had it open")
        }
    }

    @Test func aFileRewrittenContinuouslyIsAnnouncedOnlyAsWholeVersions() async throws {
        var configuration = WatcherHarness.fastConfiguration
        configuration.maximumSettleDelay = .milliseconds(100)
        try await WatcherHarness.run(configuration: configuration) { harness in
            let file = try await harness.watchNewFile("list.txt", containing: Self.version(0))
            let writer = BlockingThread { () throws -> Int in
                let end = ContinuousClock.now + .seconds(2)
                var number = 0
                while ContinuousClock.now < end {
                    number += 1
                    let text = Self.version(number)
                    // Truncate, half, pause, rest: a read in between sees a torn version.
                    try FileOperations.write([String(text.prefix(100)), String(text.dropFirst(100))], to: file, pause: .milliseconds(1))
                    usleep(10_000)
                }
                return number
            }
            while !writer.isFinished {
                try? await Task.sleep(for: .milliseconds(50))
            }
            let written = try writer.join()
            let whole = Set((0...written).map { Observation.content(Self.version($0)) })
            await harness.expectSettled(file, at: .content(Self.version(written)))
            let observed = harness.observations(of: file)
            #expect(observed.allSatisfy(whole.contains), "torn versions announced: \(observed.filter { !whole.contains($0) }), \(harness.refusedReadCount) reads refused")
            // One every maximumSettleDelay on an idle machine (about 20); on a loaded one reads
            // the next save overtakes are refused, so only ask for one during the storm besides
            // the last: without the bound the file is never quiet long enough for any.
            #expect(observed.count >= 2, "\(observed.count) versions announced of \(written), \(harness.refusedReadCount) reads refused")
        }
    }
}
