#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListSyncProtocol
import ListSyncTestSupport
import Logging
import NIOPosix
import Synchronization
import Testing
@testable import ListSyncDaemon

/// A new version is handed to its subscribers by the thread that made it durable, right after
/// the journal's flush returned — no hop through the tracker's task between the flush and the
/// wake-up (issue 19's latency) — and never before: when they are woken, the version is in the
/// watch's state on disk.
@Suite struct PublishingAfterTheFlushTests {
    /// Notes, for each wake-up, the thread it came on, the version the feed then had and the
    /// version the watch's state on disk then restored.
    final class Witness: WatchFeedSubscriber {
        struct Wake: Sendable {
            let thread: pthread_t
            let seq: UInt64?
            let onDisk: UInt64?
        }
        let feed: Mutex<WatchFeed?> = Mutex(nil)
        let wakes = Mutex<[Wake]>([])
        let stateDirectory: String
        let watch: WatchConfiguration

        init(stateDirectory: String, watch: WatchConfiguration) {
            self.stateDirectory = stateDirectory
            self.watch = watch
        }

        func feedDidChange() {
            let seq = self.feed.withLock { $0 }?.currentVersion?.seq
            var store = WatchStateStore(stateDirectory: self.stateDirectory, name: self.watch.name, historyLength: 10, crashPoints: .none)
            let onDisk: UInt64? = if case .restored(let version, _, _) = store.restore(for: self.watch).restoration { version.seq } else { nil }
            let wake = Wake(thread: pthread_self(), seq: seq, onDisk: onDisk)
            self.wakes.withLock { $0.append(wake) }
        }
    }

    @Test func aNewVersionWakesItsSubscribersOnTheThreadThatFlushedIt() async throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("list.csv")
        try FileOperations.write("id,name\n1,a\n2,b\n", to: path)
        let watch = WatchConfiguration(name: "w", path: path, format: .csv, key: ["id"])
        let feed = WatchFeed(watch: watch, epoch: Epoch(rawValue: 1), historyLength: 10)
        let store = WatchStateStore(stateDirectory: scratch.path("state"), name: "w", historyLength: 10, crashPoints: .none)
        let tracker = FileTracker(watch: watch, feed: feed, store: store, logger: Logger(label: "test"))
        // One thread: every save runs on it.
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let poolThread = try await pool.runIfActive { pthread_self() }
        let witness = Witness(stateDirectory: scratch.path("state"), watch: watch)
        witness.feed.withLock { $0 = feed }
        feed.wake(witness)
        let running = Task { await tracker.run(pool: pool) }
        await tracker.waitUntilLoaded()
        for seq in UInt64(1)...3 {
            try FileOperations.write("id,name\n1,a\n2,b\n3,v\(seq)\n", to: path)
            tracker.readRequests.yield(.reread)
            try await eventually("version \(seq) published") { feed.currentVersion?.seq == seq }
        }
        tracker.stop()
        await running.value
        try await pool.shutdownGracefully()

        let changesets = witness.wakes.withLock { $0 }.filter { ($0.seq ?? 0) >= 1 }
        #expect(Set(changesets.compactMap(\.seq)) == [1, 2, 3], "each changeset woke the subscriber")
        for wake in changesets {
            #expect(wake.thread == poolThread, "version \(wake.seq ?? 0) woke its subscribers on thread \(wake.thread), not the flushing thread \(poolThread)")
            #expect(wake.onDisk == wake.seq, "version \(wake.seq ?? 0) was published while the state on disk restored \(wake.onDisk.map(String.init) ?? "nothing")")
        }
    }
}
