import NATSTransport

/// Enforces a sink's ``JetStreamRetention`` after each publish and, for `--max-age`, on a timer:
/// a stream nothing is published to still loses its messages older than the bound (never the
/// latest complete snapshot or the changesets after it).
///
/// One enforcement at a time: one asked for while another runs is passed over (the next publish
/// or tick enforces the bound again).
actor JetStreamRetentionKeeper {
    private var retention: JetStreamRetention
    private var enforcing = false
    private let connection: NATSConnection
    private let stream: String
    private let subject: String

    /// Keeps `retention` on `subject` of `stream`.
    init(_ retention: JetStreamRetention, connection: NATSConnection, stream: String, subject: String) {
        self.retention = retention
        self.connection = connection
        self.stream = stream
        self.subject = subject
    }

    /// How often the timer enforces `--max-age` of `seconds`: half of it, between 1 s and 60 s
    /// (a message is purged at most that much later than it becomes too old).
    static func tick(forMaximumAge seconds: Int64) -> Duration {
        .milliseconds(min(max(seconds * 500, 1000), 60_000))
    }

    /// Enforces the bound, the subject's latest complete snapshot starting at `latestSnapshot`;
    /// the line to log when the stream stays over its bound for the first time, else `nil`.
    func enforce(latestSnapshot: UInt64?) async throws -> String? {
        guard !self.enforcing, self.retention.isBounded else { return nil }
        self.enforcing = true
        defer { self.enforcing = false }
        var retention = self.retention
        let line = try await retention.enforce(on: self.connection, stream: self.stream, subject: self.subject, latestSnapshot: latestSnapshot)
        self.retention = retention
        return line
    }

    /// Enforces `--max-age` every ``tick(forMaximumAge:)`` until cancelled, reading the latest
    /// complete snapshot from the subject's last message (as a reader does); each line to log
    /// goes to `report`. Failures (NATS unreachable for a while) wait for the next tick.
    func runTimer(reporting report: @Sendable (String) -> Void) async {
        guard let age = self.retention.maximumAgeSeconds else { return }
        let (connection, stream, subject) = (self.connection, self.stream, self.subject)
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.tick(forMaximumAge: age))
                let last = try await JetStreamBlocking.run { try connection.lastMessage(in: stream, subject: subject) }
                guard let last, let envelope = JetStreamEnvelope(headers: last.headers) else { continue }
                if let line = try await self.enforce(latestSnapshot: envelope.latestSnapshot(at: last.streamSequence)) { report(line) }
            } catch is CancellationError {
                return
            } catch {
                continue
            }
        }
    }
}
