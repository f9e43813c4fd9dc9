import Logging
import Testing
@testable import ListSyncDaemon

@Suite struct ServiceSupportTests {
    @Test func theStatusLineCountsWatchesSubscribersAndConnections() {
        #expect(StatusLine(watches: 1, subscribers: 0, connections: 1).description == "serving 1 watch to 0 subscribers on 1 connection")
        #expect(StatusLine(watches: 3, subscribers: 1, connections: 2).description == "serving 3 watches to 1 subscriber on 2 connections")
    }

    @Test func theWatcherThreadReportsItselfAliveWhileItRuns() async throws {
        let watcher = FileWatcher(logger: Logger(label: "test"))
        let running = Task { try await watcher.run() }
        defer { running.cancel() }
        // The thread turns at least once a second, idle or not.
        let deadline = ContinuousClock.now + .seconds(5)
        while !FileWatcher.isInotifyThreadResponsive(within: .seconds(2)), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileWatcher.isInotifyThreadResponsive(within: .seconds(2)))
        try await Task.sleep(for: .milliseconds(1500))
        #expect(FileWatcher.isInotifyThreadResponsive(within: .seconds(2)), "still turning while idle")
    }

    @Test func signalsReleaseEveryWaiterOnce() async {
        let signal = Signal()
        async let first: Void = signal.wait()
        async let second: Void = signal.wait()
        signal.fire()
        signal.fire()
        _ = await (first, second)
        await signal.wait()
    }
}
