import Glibc
import Synchronization
import ListSyncTestSupport
import Testing
import UnixSockets

/// The protocol client's waits for messages hold no thread of the cooperative pool: many of
/// them at once, more than the pool has threads, leave other tasks free to run. (Its blocking
/// `poll` did hold one each, and a pool as wide as the machine's two cores stalled whole.)
@Suite struct ProtocolClientWaitTests {
    @Test func manyWaitsForMessagesLeaveThePoolFreeForOtherTasks() async throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("s.sock")
        // A server that never answers: connections complete in its backlog and stay silent.
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        let address = try UnixSocketAddress(path: path)
        try #require(address.withSocketAddress { bind(listener, $0, $1) } == 0)
        try #require(listen(listener, 64) == 0)

        let waits = 4 * max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 2)
        // What ended first: a blocking wait would hold its pool thread for the whole 15 s, and
        // with more waits than threads the sleep could only end after some wait had ended. The
        // order is checked, not a time, so a loaded machine does not make it fail.
        let ends = Ends()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<waits {
                group.addTask {
                    let client = try ProtocolClient(connectingOnceTo: path)
                    await #expect(throws: ProtocolClient.Failure.self) { try await client.receiveLine(timeout: .seconds(15)) }
                    ends.note("wait")
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(300))
                ends.note("sleep")
            }
            try await group.waitForAll()
        }
        let order = ends.order
        #expect(order.first == "sleep", "a 300 ms sleep beside \(waits) waits for messages of 15 s ended after them: \(order)")
    }
}

/// The order in which tasks ended.
private final class Ends: Sendable {
    private let names = Mutex<[String]>([])

    func note(_ name: String) {
        self.names.withLock { $0.append(name) }
    }

    var order: [String] {
        self.names.withLock { $0 }
    }
}
