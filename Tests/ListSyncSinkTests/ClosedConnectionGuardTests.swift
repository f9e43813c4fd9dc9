import Logging
import PostgresNIO
import Testing

@testable import ListSyncSink

/// A statement sent on a connection whose server went away is given up on, never waited for
/// forever (`ClosedConnectionGuard`).
@Suite struct ClosedConnectionGuardTests {
    /// The cause of sinks that hung after `pg_ctl restart -m immediate`: PostgresNIO drops a
    /// statement written into a connection that is already closed, and its reply never comes.
    /// Written deterministically here — the connection closed, then a statement sent — where the
    /// restart does it by chance, between two statements of a transaction. The guard answers
    /// with ``ClosedConnectionGuard/Abandoned``, which the sink retries.
    @Test(.timeLimit(.minutes(1))) func aStatementOnAClosedConnectionIsGivenUpOn() async throws {
        let server = try await PostgresServer()
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: server.directory + "/.s.PGSQL.5432", username: "postgres", password: nil, database: "postgres"),
            id: 1, logger: logger)
        let answered = try await ClosedConnectionGuard.run(on: connection) { connection in
            try await connection.query("SELECT 1", logger: logger).collect().count
        }
        #expect(answered == 1, "a live connection's statement is answered")
        try await connection.close()

        let started = ContinuousClock.now
        await #expect(throws: ClosedConnectionGuard.Abandoned.self) {
            try await ClosedConnectionGuard.run(on: connection) { connection in
                try await connection.query("SELECT 1", logger: logger).collect().count
            }
        }
        #expect(ContinuousClock.now - started < .seconds(10), "given up on soon after the grace")
        #expect(PostgresSinkStore.isTransient(ClosedConnectionGuard.Abandoned(grace: ClosedConnectionGuard.grace)), "and retried")
    }
}
