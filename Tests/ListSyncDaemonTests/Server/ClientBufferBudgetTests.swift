import Glibc
import NIOEmbedded
import Testing
@testable import ListSyncDaemon

@Suite struct ClientBufferBudgetTests {
    /// `count` connections on one loop, registered, whose buffers count against `budget`.
    private static func connections(_ count: Int, limit: Int) -> (ClientBufferBudget, [ConnectionMailbox], EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let registry = ConnectionRegistry()
        let budget = ClientBufferBudget(limit: limit, connections: registry)
        let handles = (0..<count).map { _ in ConnectionMailbox(eventLoop: loop, budget: budget) }
        handles.forEach(registry.add)
        return (budget, handles, loop)
    }

    /// Lets the next pass over the connections run (passes are rate-limited).
    private static func nextPass() async throws {
        try await Task.sleep(for: .nanoseconds(Int(ClientBufferBudget.enforcementInterval) * 2))
    }

    @Test func overTheBudgetTheConnectionsHoldingDataLongestAreCutOffFirstUntilTheExcessIsCovered() async throws {
        let (budget, handles, _) = Self.connections(4, limit: 100)
        // A connection that holds nothing is never a candidate.
        handles[0].noteUnfinishedLine(bytes: 40)
        try await Self.nextPass()
        handles[1].noteUnfinishedLine(bytes: 40)
        try await Self.nextPass()
        #expect(budget.usedBytes == 80)
        #expect(handles.map(\.isCutOff) == [false, false, false, false])

        // 40 over: the oldest line, 40 bytes, covers it.
        handles[2].noteUnfinishedLine(bytes: 60)
        #expect(handles.map(\.isCutOff) == [true, false, false, false])
        try await Self.nextPass()

        // Still 80 over (the first has not closed yet, but counts as freed): the next oldest.
        handles[1].noteUnfinishedLine(bytes: 80)
        #expect(handles.map(\.isCutOff) == [true, true, false, false])

        // Closing returns what a connection held.
        handles[0].releaseBuffers()
        handles[1].releaseBuffers()
        #expect(budget.usedBytes == 60)
        // A finished line holds nothing.
        handles[2].noteUnfinishedLine(bytes: 0)
        #expect(budget.usedBytes == 0)
    }
}
