import Glibc
import Testing
import ListSyncTestSupport

extension SinkBehaviourTests {
    /// The daemon restarted under a running sink: the sink says when it retries (`reconnecting in
    /// N ms`, the client's backoff), says it is subscribed again with the line `mirror` and
    /// `exec` print, and resumes with the version saved while the daemon was down.
    @Test func aDaemonRestartIsReportedWithTheRetryAndTheResumption() async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await Self.productsSink(harness, .sqlite, [])
        defer { sink.send(SIGKILL) }
        func subscriptions() -> [Substring] {
            readFile(harness.path("sink.err")).split(separator: "\n").filter { $0.hasPrefix("listsync: subscribed to products at ") }
        }
        #expect(subscriptions().count == 1, "\(readFile(harness.path("sink.err")))")

        try await harness.stopDaemon()
        try await eventually("the sink says when it reconnects") {
            readFile(harness.path("sink.err")).split(separator: "\n").contains { line in
                guard let range = line.range(of: "; reconnecting in "), line.hasSuffix(" ms") else { return false }
                return Int(line[range.upperBound...].dropLast(3)).map { $0 > 0 } ?? false
            }
        }
        try await harness.save(ProductVersions.csv(1))
        try await harness.startDaemon()
        try await eventually("the sink is subscribed again") { subscriptions().count == 2 }
        #expect(subscriptions().last?.hasSuffix(": resuming") == true, "\(readFile(harness.path("sink.err")))")
        try await eventually("the version saved while the daemon was down is in the table") { try await Self.tableEqualsFile(harness, database) }
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
    }

    /// PostgreSQL stopped under a running sink: the next commit finds no server, the sink says
    /// when it retries (as for the daemon, following the backoff), says once that the database
    /// is reachable again when the server is back, and commits the changeset.
    @Test func aLostDatabaseIsReportedWithTheRetryAndTheResumption() async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await Self.productsSink(harness, .postgres, [])
        defer { sink.send(SIGKILL) }
        let server = try #require((database as? PostgresTestDatabase)?.server)
        try await server.stopImmediately()
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the sink retries") { readFile(harness.path("sink.err")).contains("reconnecting in 400 ms") }
        try await server.start()
        try await eventually("the changeset is committed after the restart") { try await Self.tableEqualsFile(harness, database) }
        let lines = readFile(harness.path("sink.err")).split(separator: "\n")
        let retry = try #require(lines.firstIndex { $0.hasPrefix("listsync: products: database unavailable: ") }, "\(lines)")
        #expect(lines[retry].contains("; reconnecting in 100 ms"), "the first retry after the backoff's first delay: \(lines[retry])")
        #expect(lines[retry...].filter { $0.hasSuffix(" reachable again: resuming") }.count == 1, "\(lines)")
        #expect(sink.exitStatus == nil, "\(lines)")
    }
}
