import DurableFiles
@testable import FileWatching
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import ListSyncDaemon

@Suite("SystemdNotifier")
struct SystemdNotifierTests {
    @Test("notifications arrive as one datagram on a path socket")
    func pathSocket() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/notify.sock"
        let listener = try DatagramListener(notifySocket: path)
        let notifier = try #require(try SystemdNotifier(environment: environment(["NOTIFY_SOCKET": path])))
        try notifier.notify(.ready, .status("2 watches,\n3 subscribers"))
        #expect(try await listener.nextDatagram() == "READY=1\nSTATUS=2 watches, 3 subscribers")
        try notifier.notify(.stopping)
        #expect(try await listener.nextDatagram() == "STOPPING=1")
    }

    @Test("an @name is the abstract namespace: the datagram arrives without any file")
    func abstractSocket() async throws {
        let name = "@listsync-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let listener = try DatagramListener(notifySocket: name)
        let notifier = try SystemdNotifier(notifySocket: name)
        try notifier.notify(.watchdog)
        #expect(try await listener.nextDatagram() == "WATCHDOG=1")
        // The same name as a path must not reach it: the leading NUL is what makes it abstract.
        #expect(access(String(name.dropFirst()), F_OK) != 0)
    }

    @Test("RELOADING=1 carries the CLOCK_MONOTONIC time in microseconds")
    func reloading() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/n.sock"
        let listener = try DatagramListener(notifySocket: path)
        func monotonicMicroseconds() -> UInt64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        }
        let before = monotonicMicroseconds()
        try SystemdNotifier(notifySocket: path).notify(.reloadingNow())
        let after = monotonicMicroseconds()
        let lines = try await listener.nextDatagram().split(separator: "\n")
        #expect(lines.first == "RELOADING=1")
        let stamp = try #require(lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil })
        #expect((before...after).contains(stamp))
    }

    @Test("no NOTIFY_SOCKET, or an empty one, means no notifier", arguments: [[:], ["NOTIFY_SOCKET": ""]])
    func absent(variables: [String: String]) throws {
        #expect(try SystemdNotifier(environment: environment(variables)) == nil)
    }

    @Test("unsupported or oversized addresses are rejected up front")
    func invalidAddresses() {
        #expect(throws: SystemdError.unsupportedNotifySocket("vsock:2:1234")) {
            try SystemdNotifier(notifySocket: "vsock:2:1234")
        }
        let long = "/" + String(repeating: "n", count: 107)
        #expect(throws: SystemdError.socketAddressTooLong(long)) { try SystemdNotifier(notifySocket: long) }
        #expect(throws: Never.self) { try SystemdNotifier(notifySocket: "/" + String(repeating: "n", count: 106)) }
    }

    @Test("sending to a socket nobody listens on is an error, not a hang")
    func nobodyListening() throws {
        let directory = try ScratchDirectory()
        let notifier = try SystemdNotifier(notifySocket: directory.path + "/absent.sock")
        #expect(throws: SystemdError.systemCall(SystemCallError(call: "sendto", code: ENOENT))) {
            try notifier.notify(.ready)
        }
    }
}
