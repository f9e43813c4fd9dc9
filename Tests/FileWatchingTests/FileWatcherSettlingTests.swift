import Glibc
import Synchronization
import Testing
@testable import FileWatching

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
            try await FileOperations.write(["[1,", "2]"], to: file, pausing: .milliseconds(600))
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

    /// A writer that opens the file after it was announced but before the announcement's read —
    /// a loaded daemon reads late — holds it back for the whole writer bound counted from its own
    /// first change, not from the announced settle cycle's start: the refused read does not bring
    /// the bound closer, so the half it wrote is never announced.
    ///
    /// Times from the watch: announced at once (the close settle delay), the writer truncates at
    /// 1 s and writes half, the first read comes at 1.5 s (refused: the writer has the file
    /// open), the writer finishes at 3 s. Counted from the watch, the 2.5 s bound would pass at
    /// 2.5 s and announce the half; counted from the writer's start, it passes at 3.5 s.
    @Test func aReadRefusedForALateWriterDoesNotBringTheWriterBoundCloser() async throws {
        var configuration = WatcherHarness.fastConfiguration
        configuration.maximumWaitForWriter = .milliseconds(2500)
        try await WatcherHarness.run(configuration: configuration, beforeRead: { turn in
            if turn.announcement == 0 {
                try? await Task.sleep(for: .milliseconds(1500))
            }
        }) { harness in
            let file = harness.path("list.json")
            try FileOperations.write("[0]", to: file)
            try harness.watcher.watch(file)
            let writer = BlockingThread { () throws in
                usleep(1_000_000)
                try FileOperations.write(["[1,", "2]"], to: file, pause: .seconds(2))
            }
            while !writer.isFinished {
                try? await Task.sleep(for: .milliseconds(50))
            }
            try await writer.value()
            let seen = await harness.waitUntil { harness.observations(of: file).last == .content("[1,2]") }
            #expect(seen, "\(harness.observations(of: file))")
            #expect(harness.observations(of: file).allSatisfy { [.content("[0]"), .content("[1,2]")].contains($0) }, "\(harness.observations(of: file))")
        }
    }

    /// Every read its check refuses leads to a later announcement, also when another reader's
    /// read of the same announcement was confirmed — as the trackers of two watches that follow
    /// one file read it. Here someone else opens the file during the second reader's read and
    /// keeps it open (it could be a writer about to overwrite it in place): that read is
    /// refused, and the file is announced again. Nothing else would announce it: opening a file
    /// does not change it. (The other opener then touches another file of the directory, as any
    /// other process would in the meantime, so that its `IN_OPEN` does not merge with the read's
    /// own, right after it: inotify merges identical events in a row.)
    @Test func aReadRefusedAfterAnotherReaderConfirmedTheSameAnnouncementLeadsToAnotherRead() async throws {
        let otherReader = DescriptorHolder()
        try await WatcherHarness.run(readers: 2, duringRead: { turn in
            if turn.announcement == 0, turn.reader == 1 {
                otherReader.open(turn.path)
                let other = Glibc.open(turn.path + ".other", O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
                Glibc.close(other)
            }
        }) { harness in
            let file = harness.path("list.json")
            try FileOperations.write("[1]", to: file)
            try harness.watcher.watch(file)
            let refused = await harness.waitUntil { harness.refusedReadCount > 0 }
            #expect(refused, "the second read was not refused: \(harness.observations(of: file, reader: 1))")
            #expect(harness.observations(of: file, reader: 0) == [.content("[1]")])
            otherReader.close()
            let seen = await harness.waitUntil { harness.observations(of: file, reader: 1) == [.content("[1]")] }
            #expect(seen, "the refused reader never read the file again: \(harness.observations(of: file, reader: 1))")
        }
    }

    /// A file rewritten every 10 ms for 6 s — in place (truncate, 100 bytes, 1 ms pause, the rest)
    /// or by rename — is never quiet for the settle delays (300 ms here, so that only the bound
    /// announces it), yet a whole version is announced (and its read confirmed) at least every
    /// ``FileWatcher/Configuration/maximumSettleDelay``, plus a margin for a loaded 2-core
    /// machine (a read or two refused because the next save began during it, and scheduling):
    /// never a torn one.
    ///
    /// Every read comes 30 ms after its announcement, as a busy daemon's tracker reads late:
    /// three saves later. The read must still count — it is judged by what happened during it,
    /// not since the announcement (judged that way, every late read was refused and nothing was
    /// announced for as long as the writer went on).
    @Test(arguments: [false, true])
    func aFileRewrittenContinuouslyIsAnnouncedOnlyAsWholeVersions(byRename: Bool) async throws {
        var configuration = WatcherHarness.fastConfiguration
        configuration.closeSettleDelay = .milliseconds(300)
        configuration.modifySettleDelay = .milliseconds(300)
        configuration.maximumSettleDelay = .milliseconds(200)
        // Past the writer bound (5 s by default, less than the 6 s writer), a file that a writer
        // holds is announced `.changedWhileWriting`, which the harness reads unchecked, as a watch
        // that publishes while writing would: a half-written version is then what it should see.
        // One loaded full run recorded a half-written version here, most likely by that path (no
        // checked read can give one). This test is about checked announcements: the bound is put
        // beyond the writer.
        configuration.maximumWaitForWriter = .seconds(60)
        // A read the writer overlapped is refused and the file announced again: on a loaded
        // machine (the whole suite on two cores) a gap may hold a refused read or two beside the
        // settle delay — 0.82 s was seen with a 0.7 s bound, more in CI. A watcher that stopped
        // announcing a file written all along would leave a gap of the whole 6 s.
        let bound = configuration.maximumSettleDelay + .milliseconds(2_000)
        try await WatcherHarness.run(configuration: configuration, beforeRead: { _ in try? await Task.sleep(for: .milliseconds(30)) }) { harness in
            let file = try await harness.watchNewFile("list.txt", containing: Self.version(0))
            let before = harness.observations(of: file).count
            let started = ContinuousClock.now
            let writer = BlockingThread { () throws -> Int in
                let end = ContinuousClock.now + .seconds(6)
                var number = 0
                while ContinuousClock.now < end {
                    number += 1
                    let text = Self.version(number)
                    if byRename {
                        try FileOperations.write(text, to: file + ".tmp")
                        try FileOperations.rename(file + ".tmp", to: file)
                    } else {
                        // Truncate, half, pause, rest: a read in between sees a torn version.
                        try FileOperations.write([String(text.prefix(100)), String(text.dropFirst(100))], to: file, pause: .milliseconds(1))
                    }
                    usleep(10_000)
                }
                return number
            }
            while !writer.isFinished {
                try? await Task.sleep(for: .milliseconds(50))
            }
            let ended = ContinuousClock.now
            let written = try await writer.value()
            let whole = Set((0...written).map { Observation.content(Self.version($0)) })
            let times = harness.observationTimes(of: file).dropFirst(before).filter { $0 < ended }
            await harness.expectSettled(file, at: .content(Self.version(written)))
            let observed = harness.observations(of: file)
            #expect(observed.allSatisfy(whole.contains), "torn versions announced: \(observed.filter { !whole.contains($0) }), \(harness.refusedReadCount) reads refused")
            let gaps = zip([started] + times, times + [ended]).map { $1 - $0 }
            #expect(gaps.allSatisfy { $0 <= bound }, "gaps \(gaps) over \(bound) while \(written) versions were written, \(harness.refusedReadCount) reads refused")
        }
    }
}

/// A file descriptor opened in one place and closed in another, for a reader (or a writer) that
/// is not the watcher's consumer.
final class DescriptorHolder: Sendable {
    private let descriptor = Mutex<Int32?>(nil)

    func open(_ path: String, flags: Int32 = O_RDONLY) {
        let opened = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        #expect(opened >= 0, "cannot open \(path)")
        descriptor.withLock { $0 = opened }
    }

    /// Writes `text` through the descriptor.
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        let written = descriptor.withLock { descriptor in
            descriptor.map { descriptor in bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } } ?? -1
        }
        #expect(written == bytes.count, "cannot write")
    }

    func close() {
        if let opened = descriptor.withLock({ $0.take() }) {
            Glibc.close(opened)
        }
    }
}
