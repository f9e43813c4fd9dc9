import Glibc
import NATSTransport

/// Bounds a watch's subject in its stream, in bytes and age, without ever dropping the latest
/// complete snapshot or the changesets after it: server-side limits (`max_bytes`, `max_age`)
/// drop the oldest messages whatever they are, the latest snapshot included, which would leave
/// a reader without a list to start from.
///
/// After each publish (and, for ``maximumAgeSeconds``, on ``JetStreamRetentionKeeper``'s timer
/// too), when the stream holds more than ``maximumBytes`` or its first message is older than
/// ``maximumAgeSeconds``, the messages of the watch's subject below the first message of the
/// latest complete snapshot are purged (the subject only: several watches may share a
/// stream). When that is not enough — the snapshot and its tail alone are over the bound — they
/// are kept and the sink says so once, until the stream is within its bound again.
public struct JetStreamRetention: Sendable, Hashable {
    /// The most bytes the stream should hold; `nil`: no bound.
    public var maximumBytes: UInt64?
    /// How old, in seconds, the stream's first message may be; `nil`: no bound.
    public var maximumAgeSeconds: Int64?
    /// The sequence below which the subject was last purged (nothing below it is left).
    private var purgedBelow: UInt64 = 0
    /// Whether the sink has said that the stream is over its bound and why.
    private var reportedOver = false

    /// Retention within `maximumBytes` and `maximumAgeSeconds` (each `nil`: unbounded).
    public init(maximumBytes: UInt64? = nil, maximumAgeSeconds: Int64? = nil) {
        self.maximumBytes = maximumBytes
        self.maximumAgeSeconds = maximumAgeSeconds
    }

    /// Whether there is any bound to enforce.
    public var isBounded: Bool { self.maximumBytes != nil || self.maximumAgeSeconds != nil }

    /// Why `state` is over the bound, `nil` when it is within it.
    func excess(of state: NATSStreamState) -> String? {
        var reasons: [String] = []
        if let maximum = self.maximumBytes, state.bytes > maximum {
            reasons.append("holds \(state.bytes) bytes, more than --max-bytes \(maximum)")
        }
        if let maximum = self.maximumAgeSeconds, state.messages > 0 {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let age = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) - state.firstTimeNanoseconds
            if age > maximum * 1_000_000_000 {
                reasons.append("its first message is \(age / 1_000_000) ms old, older than --max-age \(maximum) s")
            }
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: " and ")
    }

    /// Enforces the bound on `subject` of `stream`, whose latest complete snapshot starts at
    /// `latestSnapshot`; the line to log when the stream stays over its bound for the first
    /// time, else `nil`.
    mutating func enforce(
        on connection: NATSConnection, stream: String, subject: String, latestSnapshot: UInt64?
    ) async throws -> String? {
        guard self.isBounded, let latest = latestSnapshot else { return nil }
        guard var state = try await JetStreamBlocking.run({ try connection.streamState(stream) }), self.excess(of: state) != nil else {
            self.reportedOver = false
            return nil
        }
        // Only when there is something below it: a purge below sequence 1 would empty the subject.
        if latest > self.purgedBelow, latest > state.firstSequence {
            try await JetStreamBlocking.run { try connection.purge(stream, subject: subject, below: latest) }
            self.purgedBelow = latest
            guard let after = try await JetStreamBlocking.run({ try connection.streamState(stream) }) else { return nil }
            state = after
        }
        guard let excess = self.excess(of: state) else {
            self.reportedOver = false
            return nil
        }
        guard !self.reportedOver else { return nil }
        self.reportedOver = true
        return "the stream \(stream) \(excess): nothing of \(subject) is left before its latest complete snapshot (sequence \(latest)), which is kept with the changesets after it until a later snapshot lets the older ones go"
    }
}
