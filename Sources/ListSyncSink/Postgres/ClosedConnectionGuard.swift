import PostgresNIO
import Synchronization

/// Runs database work on a connection and gives up on it once the connection has closed and the
/// work has still not ended a moment later: a sink never waits forever on a server that went away.
///
/// PostgresNIO 1.33 writes each statement into the connection's channel without a promise. Once
/// the channel is closed, NIO removes its handlers, so a statement written after the server went
/// away — between two statements of a transaction, when PostgreSQL is restarted with
/// `-m immediate` — reaches no handler: it is dropped, and its reply is awaited forever, with no
/// error to retry on. A closed connection makes no more progress, whatever the work, so giving up
/// on it then cuts nothing that could still succeed (a long `COPY` on a live connection runs for
/// as long as it takes).
///
/// The work runs in a task of its own; the caller is answered by whichever comes first, the work
/// or the watch. Work given up on is left to end (or hang) on its own: it holds only the closed
/// connection, which can send nothing more, so it commits nothing.
enum ClosedConnectionGuard {
    /// The connection closed under the work, which never ended: retried like any lost connection
    /// (``PostgresSinkStore/isTransient(_:)``).
    struct Abandoned: Error, CustomStringConvertible {
        /// How long the work was given after the connection was seen closed.
        let grace: Duration

        var description: String {
            "the connection closed and the statement sent on it was never answered (given up after \(grace))"
        }
    }

    /// How long PostgresNIO is given to fail the work itself once the connection is seen closed
    /// (it does so at once for a statement it knows of, with the server's own reason).
    static let grace: Duration = .seconds(1)

    /// How often a running work's connection is looked at.
    static let poll: Duration = .milliseconds(250)

    /// What `work` returns on `connection`, or ``Abandoned`` once the connection has been closed
    /// for ``grace`` with `work` still running.
    static func run<Value>(
        on connection: PostgresConnection, _ work: @escaping (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let outcome = Outcome<Value>()
        let work = Unchecked(value: work)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard outcome.start(continuation) else { return }
                outcome.started(
                    Task {
                        do {
                            outcome.finish(.success(Unchecked(value: try await work.value(connection))))
                        } catch {
                            outcome.finish(.failure(error))
                        }
                    })
                Task {
                    while !outcome.isFinished {
                        try? await Task.sleep(for: self.poll)
                        guard connection.isClosed else { continue }
                        try? await Task.sleep(for: self.grace)
                        outcome.finish(.failure(Abandoned(grace: self.grace)))
                    }
                }
            }.value
        } onCancel: {
            outcome.cancel()
        }
    }

    /// A value that crosses to the work's task and back. Only one task uses it at a time: the
    /// caller waits while the work runs, and work given up on touches nothing the caller uses.
    struct Unchecked<Wrapped>: @unchecked Sendable {
        let value: Wrapped
    }

    /// Who answers the caller: the work, the watch or a cancellation, whichever comes first.
    final class Outcome<Value>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Unchecked<Value>, any Error>?
            var work: Task<Void, Never>?
            var finished = false
        }

        private let state = Mutex(State())

        var isFinished: Bool { self.state.withLock { $0.finished } }

        /// Keeps `continuation` for the answer; `false` (and answered) when cancelled already.
        func start(_ continuation: CheckedContinuation<Unchecked<Value>, any Error>) -> Bool {
            let cancelled = self.state.withLock { state in
                if !state.finished { state.continuation = continuation }
                return state.finished
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        /// Keeps the work's task, to cancel it with the caller.
        func started(_ work: Task<Void, Never>) {
            let cancelled = self.state.withLock { state in
                state.work = work
                return state.finished && state.continuation == nil
            }
            if cancelled { work.cancel() }
        }

        /// Answers the caller, unless it was answered already. Work given up on is cancelled
        /// (a statement whose reply can never come may ignore it, and is then left behind: one
        /// small task per connection lost so).
        func finish(_ result: Result<Unchecked<Value>, any Error>) {
            let (continuation, work) = self.state.withLock { state in
                state.finished = true
                defer { state.continuation = nil }
                return (state.continuation, state.work)
            }
            if case .failure = result { work?.cancel() }
            continuation?.resume(with: result)
        }

        /// The caller's task was cancelled: the work is, and the caller is answered.
        func cancel() {
            self.finish(.failure(CancellationError()))
        }
    }
}
