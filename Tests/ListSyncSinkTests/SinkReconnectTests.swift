import Glibc
import Testing
import ListSyncTestSupport

@testable import ListSyncSink

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

    /// The sink's server connection cut while another session takes the table's lock (as the
    /// server would still hold the sink's own lost session after a network cut): on the
    /// reconnect the held lock is retried with the backoff, naming its holder, not a refusal
    /// (exit status 1, which systemd never restarts); once it is free the sink resumes and
    /// commits the changeset.
    @Test func aLockStillHeldOnAReconnectIsRetried() async throws {
        let harness = try EndToEndHarness()
        let (database, sink) = try await Self.productsSink(harness, .postgres, [])
        defer { sink.send(SIGKILL) }
        let server = try #require((database as? PostgresTestDatabase)?.server)
        let key = PostgresSinkStore.lockKey(schema: "public", table: "products")
        let holder = try ChildProcess(
            "/usr/bin/psql",
            ["-h", server.directory, "-U", "postgres", "-d", "postgres", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
             "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'listsync sink products'; "
                + "SELECT pg_advisory_lock(\(key)); SELECT pg_sleep(4)"],
            outputPath: harness.path("holder.out"), errorPath: harness.path("holder.err"))
        defer { holder.send(SIGKILL) }
        try await eventually("the other session holds the lock") {
            try await server.query(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'psql'"
            ) == [["1"]]
        }
        try await harness.save(ProductVersions.csv(1))
        try await eventually("the sink retries, naming the holder") {
            readFile(harness.path("sink.err")).contains("is held by psql (server process")
        }
        #expect(sink.exitStatus == nil, "\(readFile(harness.path("sink.err")))")
        #expect(try await holder.waitForExit() == 0, "\(readFile(harness.path("holder.err")))")
        try await eventually("the changeset is committed once the lock is free") { try await Self.tableEqualsFile(harness, database) }
        let log = readFile(harness.path("sink.err"))
        #expect(log.contains(" reachable again: resuming") && sink.exitStatus == nil, "\(log)")
    }
}
