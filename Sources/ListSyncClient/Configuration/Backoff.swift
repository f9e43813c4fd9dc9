/// How long to wait before each attempt to reach something again — the daemon after a lost
/// connection, its socket while the listen queue is full, a database that went away: exponential
/// growth, bounded, with jitter.
///
/// The *n*-th consecutive failure (from 1) waits `initialDelay × multiplier^(n−1)`, at most
/// `maximumDelay`, then shortened by a random fraction of up to `jitter` — so that many clients
/// that lost the same server do not all come back at the same instant. Every delay therefore lies
/// in `(1 − jitter) × d … d` for the unjittered `d`, and none exceeds `maximumDelay`.
///
/// Every reconnect and retry of the client library, the CLI and the sinks computes its waits here
/// (``ReconnectPolicy`` adds attempt limits); ``Delays`` counts the failures and starts over on
/// ``Delays/reset()``.
public struct Backoff: Sendable, Hashable {
    /// The wait after the first failure.
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration
    /// How much longer each wait is than the one before (at least 1).
    public var multiplier: Double
    /// The largest fraction of a wait taken off at random, from 0 (none) to 1.
    public var jitter: Double

    /// A backoff from `initialDelay` growing by `multiplier` up to `maximumDelay`, each wait
    /// shortened by a random fraction of up to `jitter` (clamped to `0...1`).
    public init(initialDelay: Duration, maximumDelay: Duration, multiplier: Double = 2, jitter: Double) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(1, multiplier)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait after `failures` consecutive failures (from 1; less counts as 1).
    ///
    /// - Parameter random: A number in `0..<1` that picks the jitter (clamped).
    public func delay(afterFailures failures: Int, random: Double) -> Duration {
        var delay = self.initialDelay
        for _ in 1..<max(1, failures) where delay < self.maximumDelay {
            delay = delay * self.multiplier
        }
        delay = min(delay, self.maximumDelay)
        return delay * (1 - self.jitter * min(max(random, 0), 1))
    }

    /// A count of consecutive failures that yields the wait after each.
    public func delays() -> Delays {
        Delays(backoff: self)
    }

    /// The waits of one series of attempts: each ``next(random:)`` counts a failure and returns
    /// the wait before the next attempt; ``reset()`` after a success starts over from
    /// ``Backoff/initialDelay``.
    public struct Delays: Sendable {
        /// The policy the waits follow.
        public let backoff: Backoff
        /// The failures counted since the start or the last ``reset()``.
        public private(set) var failures = 0

        /// Counts a failure and returns the wait before the next attempt.
        ///
        /// - Parameter random: A number in `0..<1` that picks the jitter.
        public mutating func next(random: Double = Double.random(in: 0..<1)) -> Duration {
            self.failures += 1
            return self.backoff.delay(afterFailures: self.failures, random: random)
        }

        /// An attempt succeeded: the next failure waits ``Backoff/initialDelay`` again.
        public mutating func reset() {
            self.failures = 0
        }
    }
}
