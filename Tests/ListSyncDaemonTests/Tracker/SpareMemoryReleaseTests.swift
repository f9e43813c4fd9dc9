import DurableFiles
import FileWatching
import ListFormats
import ListSyncProtocol
import ListSyncTestSupport
import Logging
import NIOPosix
import Testing
@testable import ListSyncDaemon

/// How long a tracker keeps the storage for its next version (``SpareMemoryRelease``): through
/// saves that come at a regular interval, given back once the watch goes quiet, never more than
/// one version's and never longer than `spare_memory_max_idle_ms`; the watch's
/// `listsync_watch_spare_memory_bytes` says what it keeps.
@Suite struct SpareMemoryReleaseTests {
    /// The delays a policy gives after reads at `offsets` (milliseconds from a start).
    static func delays(_ policy: SpareMemoryRelease, readsAt offsets: [Int]) -> [Duration] {
        var policy = policy
        let start = ContinuousClock.now
        return offsets.map { offset in
            policy.noteRead(at: start + .milliseconds(offset))
            return policy.delay
        }
    }

    @Test func theDelayFollowsTheIntervalBetweenReadsWithinItsBounds() {
        let policy = SpareMemoryRelease(minimum: .milliseconds(1500), maximum: .seconds(30))
        // The first read, then a burst 100 ms apart: the minimum.
        #expect(Self.delays(policy, readsAt: [0, 100, 200, 300]) == [.milliseconds(1500), .milliseconds(1500), .milliseconds(1500), .milliseconds(1500)])
        // Saves every 2 s: kept three intervals.
        #expect(Self.delays(policy, readsAt: [0, 2_000, 4_000]) == [.milliseconds(1500), .seconds(6), .seconds(6)])
        // The longest of the last four intervals: one late save keeps the longer delay for four reads.
        #expect(
            Self.delays(policy, readsAt: [0, 2_000, 7_000, 9_000, 11_000, 13_000, 15_000])
                == [.milliseconds(1500), .seconds(6), .seconds(15), .seconds(15), .seconds(15), .seconds(15), .seconds(6)])
        // Bounded: saves every 12 s are kept 30 s, not 36.
        #expect(Self.delays(policy, readsAt: [0, 12_000, 24_000]) == [.milliseconds(1500), .seconds(30), .seconds(30)])
        // An interval beyond the maximum: not regular, the intervals before it forgotten.
        #expect(
            Self.delays(policy, readsAt: [0, 2_000, 40_000, 42_000])
                == [.milliseconds(1500), .seconds(6), .milliseconds(1500), .seconds(6)])
    }

    @Test func aMaximumOfZeroGivesTheMemoryBackAfterEveryRead() {
        let policy = SpareMemoryRelease(minimum: .milliseconds(1500), maximum: .zero)
        #expect(Self.delays(policy, readsAt: [0, 100, 2_000]) == [.zero, .zero, .zero])
    }

    /// A tracker of a 3,000-row CSV whose spare storage goes at the earliest `minimum` and at the
    /// latest `maximum` after a read.
    struct Tracked {
        let scratch: ScratchDirectory
        let path: String
        let feed: WatchFeed
        let metrics = DaemonMetrics(clientBufferBudget: 1 << 20)
        let tracker: FileTracker
        let pool: NIOThreadPool
        let running: Task<Void, Never>

        init(minimum: Duration, maximum: Duration) async throws {
            scratch = try ScratchDirectory()
            path = scratch.path("list.csv")
            try FileOperations.write(RecycledVersionStorageTests.file(version: 1), to: path)
            let watch = WatchConfiguration(name: "w", path: path, format: .csv, key: ["id"])
            feed = WatchFeed(
                watch: watch, epoch: Epoch(rawValue: 1), historyLength: 100, metrics: metrics.watch(named: "w", stateDirectory: nil))
            let store = WatchStateStore(
                stateDirectory: scratch.path("state"), name: "w", historyLength: 100, crashPoints: .none, isPersistent: false)
            tracker = FileTracker(
                watch: watch, feed: feed, store: store, bufferIdleDelay: minimum, spareMemoryMaxIdle: maximum, logger: Logger(label: "test"))
            pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
            running = Task { [tracker, pool] in await tracker.run(pool: pool) }
            await tracker.waitUntilLoaded()
        }

        /// Saves version `number` and waits for its publication (version `number − 1` of the feed).
        func save(_ number: Int) async throws {
            try FileOperations.write(RecycledVersionStorageTests.file(version: number), to: path)
            tracker.readRequests.yield(.reread)
            try await eventually("version \(number - 1) published", timeout: .seconds(20)) { feed.currentVersion?.seq == UInt64(number - 1) }
        }

        /// More than one version's storage in the pool and less than two: the larger version's
        /// bytes and records with their room to grow (``RecycledArray/recyclableCapacity(for:)``),
        /// a quarter more for the first read's estimate of the record count.
        var oneVersionsStorage: Int {
            let bytes = RecycledArray.recyclableCapacity(for: RecycledVersionStorageTests.file(version: 1).utf8.count + 1)
            let records = RecycledArray.recyclableCapacity(for: 3_010) * MemoryLayout<ListRecord>.stride
            return (bytes + records) * 5 / 4
        }

        /// The watch's `listsync_watch_spare_memory_bytes`, as the metrics endpoint serves it.
        func spareMemoryGauge() throws -> Double? {
            let text = String(decoding: metrics.exposition(keptChangesets: [], clientBufferBytes: 0), as: UTF8.self)
            return try EndToEndTests.Metrics.Exposition(text)[#"listsync_watch_spare_memory_bytes{watch="w"}"#]
        }

        func stop() async throws {
            tracker.stop()
            await running.value
            try await pool.shutdownGracefully()
        }
    }

    @Test func storageIsKeptThroughSavesAtARegularIntervalAndGivenBackOnceTheWatchIsQuiet() async throws {
        // A minimum far below the saves' interval: only the learned interval keeps the storage.
        let tracked = try await Tracked(minimum: .milliseconds(150), maximum: .seconds(20))
        let interval = Duration.milliseconds(800)
        try await tracked.save(2)
        try await tracked.save(3)
        // The first save after a pause finds the storage given back (the interval is learned from it).
        try await Task.sleep(for: interval)
        try await tracked.save(4)
        for number in 5...9 {
            try await Task.sleep(for: interval)
            // Kept through the pause, for this save to be read into; one version's at most.
            let held = tracked.tracker.buffers.heldByteCount
            #expect(held > 0, "the storage was given back before save \(number), \(interval) after the last")
            #expect(held <= tracked.oneVersionsStorage, "more than one version's storage held before save \(number)")
            #expect(try tracked.spareMemoryGauge() == Double(held), "the gauge before save \(number)")
            try await tracked.save(number)
        }
        // Still kept a while after the last save (three intervals of at least 800 ms)...
        try await Task.sleep(for: .seconds(1))
        #expect(!tracked.tracker.buffers.isEmpty, "given back one second after the last save")
        // ...and given back once the watch stays quiet.
        try await eventually("the tracker gives the storage back once its watch is quiet", timeout: .seconds(20)) {
            tracked.tracker.buffers.isEmpty
        }
        #expect(try tracked.spareMemoryGauge() == 0, "the gauge once the storage is given back")
        try await tracked.stop()
    }

    @Test func theMaximumBoundsHowLongStorageIsKept() async throws {
        // Saves 1.2 s apart would keep it three intervals, 3.6 s or more; the maximum gives it back after 2.5 s.
        let tracked = try await Tracked(minimum: .milliseconds(100), maximum: .milliseconds(2500))
        var keptBetweenSaves = false
        for number in 2...5 {
            try await tracked.save(number)
            try await Task.sleep(for: .milliseconds(1200))
            keptBetweenSaves = keptBetweenSaves || !tracked.tracker.buffers.isEmpty
        }
        #expect(keptBetweenSaves, "never kept 1.2 s after a save, saves 1.2 s apart under a 2.5 s maximum")
        try await tracked.save(6)
        try await eventually("given back within 3.3 s of the last save, under a 2.5 s maximum", timeout: .milliseconds(3300)) {
            tracked.tracker.buffers.isEmpty
        }
        try await tracked.stop()
    }

    @Test func aMaximumOfZeroKeepsNothingBetweenSaves() async throws {
        // A minimum of 5 s, which the maximum overrides.
        let tracked = try await Tracked(minimum: .seconds(5), maximum: .zero)
        for number in 2...4 {
            try await tracked.save(number)
            try await eventually("nothing kept after save \(number)", timeout: .seconds(3)) { tracked.tracker.buffers.isEmpty }
        }
        try await tracked.stop()
    }

    @Test func aReloadChangesTheMaximumFromTheNextSave() async throws {
        let tracked = try await Tracked(minimum: .milliseconds(100), maximum: .milliseconds(300))
        tracked.tracker.keepSpareMemory(atMost: .seconds(20))
        try await tracked.save(2)
        try await Task.sleep(for: .milliseconds(600))
        try await tracked.save(3)
        try await Task.sleep(for: .milliseconds(600))
        #expect(!tracked.tracker.buffers.isEmpty, "given back 600 ms after saves 600 ms apart under a 20 s maximum")
        try await tracked.stop()
    }
}
