@testable import FileWatching
import Logging
import Testing
@testable import ListSyncDaemon

@Suite struct ServiceSupportTests {
    @Test func theStatusLineCountsWatchesSubscribersAndConnections() {
        #expect(StatusLine(watches: 1, subscribers: 0, connections: 1).description == "serving 1 watch to 0 subscribers on 1 connection")
        #expect(StatusLine(watches: 3, subscribers: 1, connections: 2).description == "serving 3 watches to 1 subscriber on 2 connections")
    }

    @Test func theStatusLineSaysWhatNeedsAttention() {
        #expect(
            StatusLine(watches: 4, subscribers: 0, connections: 0, invalid: 1, missing: 2, writing: 1).description
                == "serving 4 watches to 0 subscribers on 0 connections; attention: 1 invalid, 2 missing, 1 writing")
        #expect(
            StatusLine(watches: 2, subscribers: 1, connections: 1, unsaved: 2).description
                == "serving 2 watches to 1 subscriber on 1 connection; attention: state of 2 watches cannot be saved")
    }

    @Test func theWatcherThreadReportsItselfAliveWhileItRuns() async throws {
        // Start the thread directly: a watcher's `run()` may wait a long while for a cooperative
        // thread when CPU-bound tests occupy them, and the check below is about the inotify thread.
        _ = try await InotifyThread.shared(logger: Logger(label: "test"))
        // Once started, the thread turns at least once a second, idle or not; the watchdog checks
        // this from any thread, so whether this task runs late does not matter.
        var clock = ContinuousClock.now
        while !FileWatcher.isInotifyThreadResponsive(within: .seconds(2)), ContinuousClock.now < clock + .seconds(5) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileWatcher.isInotifyThreadResponsive(within: .seconds(2)))
        clock = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(1500))
        #expect(FileWatcher.isInotifyThreadResponsive(within: .seconds(2)), "still turning while idle for \(ContinuousClock.now - clock)")
    }

    @Test func signalsReleaseEveryWaiterOnce() async {
        let signal = Latch()
        async let first: Void = signal.wait()
        async let second: Void = signal.wait()
        signal.fire()
        signal.fire()
        _ = await (first, second)
        await signal.wait()
    }
}
