/// When a subscriber reconnects after a failed or lost connection: a ``Backoff`` (exponential,
/// bounded and jittered), with optional limits on the attempts.
///
/// The *n*-th consecutive failure (from 1) waits ``Backoff/delay(afterFailures:random:)`` — so
/// that many clients of a restarted daemon do not all reconnect at the same instant. A successful
/// subscription resets the count.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The waits between attempts.
    public var backoff: Backoff
    /// The wait after the first failure.
    public var initialDelay: Duration {
        get { self.backoff.initialDelay }
        set { self.backoff.initialDelay = newValue }
    }
    /// The longest wait.
    public var maximumDelay: Duration {
        get { self.backoff.maximumDelay }
        set { self.backoff.maximumDelay = newValue }
    }
    /// How much longer each wait is than the one before.
    public var multiplier: Double {
        get { self.backoff.multiplier }
        set { self.backoff.multiplier = newValue }
    }
    /// The largest fraction of a wait taken off at random, from 0 (none) to 1.
    public var jitter: Double {
        get { self.backoff.jitter }
        set { self.backoff.jitter = newValue }
    }
    /// Attempts to make the *first* connection before giving up with
    /// ``ClientError/unreachable(socketPath:reason:)``; `nil`: no limit.
    public var initialAttempts: Int?
    /// Attempts, in a row, to reconnect after a connection that worked was lost; `nil`: no limit.
    public var reconnectAttempts: Int?

    /// A policy; by default waits from 50 ms up to 5 s, never gives up.
    public init(
        initialDelay: Duration = .milliseconds(50),
        maximumDelay: Duration = .seconds(5),
        multiplier: Double = 2,
        jitter: Double = 0.2,
        initialAttempts: Int? = nil,
        reconnectAttempts: Int? = nil
    ) {
        self.backoff = Backoff(initialDelay: initialDelay, maximumDelay: maximumDelay, multiplier: multiplier, jitter: jitter)
        self.initialAttempts = initialAttempts
        self.reconnectAttempts = reconnectAttempts
    }

    /// A policy that never reconnects: one attempt, and a lost connection ends the subscription.
    public static let never = ReconnectPolicy(initialAttempts: 1, reconnectAttempts: 0)

    /// The wait before the next attempt after `failures` consecutive failures (from 1), or `nil`
    /// when the policy gives up; `connectedBefore` says whether a connection ever worked.
    ///
    /// - Parameter random: A number in `0..<1` that picks the jitter.
    public func delay(afterFailures failures: Int, connectedBefore: Bool, random: Double) -> Duration? {
        let limit = connectedBefore ? self.reconnectAttempts : self.initialAttempts.map { $0 - 1 }
        if let limit, failures > limit { return nil }
        return self.backoff.delay(afterFailures: failures, random: random)
    }
}
