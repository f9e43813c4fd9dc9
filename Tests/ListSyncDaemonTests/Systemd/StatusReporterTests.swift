#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListSyncTestSupport
import Testing

@testable import ListSyncDaemon

@Suite struct StatusReporterTests {
    /// A status line the notification socket could not take — its queue full of datagrams nobody
    /// read yet, as watchdog pings pile up while systemd (or a test) is busy — is sent again at
    /// the next report, not taken for sent and lost until the counts change again.
    @Test func aLineTheSocketCouldNotTakeIsSentAtTheNextReport() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/notify.sock"
        let listener = try DatagramListener(notifySocket: path)
        let notifier = try SystemdNotifier(notifySocket: path)
        var queued = 0
        while (try? notifier.notify(.watchdog)) != nil {
            queued += 1
            try #require(queued < 100_000, "the socket's queue never filled")
        }
        let feeds = WatchFeeds()
        let reporter = StatusReporter(notifier: notifier, directory: feeds, connections: ConnectionRegistry())
        let feed = WatchFeed(
            watch: WatchConfiguration(name: "w", path: "/w.csv", format: .csv, key: ["id"]), epoch: EmbeddedConnection.epoch, historyLength: 10)
        feeds.replace(with: [feed])
        reporter.report()  // the queue is full: not sent

        var datagrams: [String] = []
        while let datagram = try listener.receiveQueued() { datagrams.append(datagram) }
        #expect(datagrams.count == queued)
        #expect(!datagrams.contains { $0.hasPrefix("STATUS=") })

        reporter.report()
        #expect(try await listener.nextDatagram() == "STATUS=\(reporter.current.description)")
        // Sent once: nothing changed since.
        reporter.report()
        #expect(try listener.receiveQueued() == nil)
    }
}
