import ListSyncClient
import Testing

@Suite struct BackoffTests {
    @Test func delaysGrowByTheMultiplierUpToTheBound() {
        let backoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2, jitter: 0)
        let delays = (1...7).map { backoff.delay(afterFailures: $0, random: 0.7) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1), .seconds(1)])
        #expect(backoff.delay(afterFailures: 0, random: 0) == .milliseconds(100), "no failure counted waits as the first")
    }

    @Test func jitterOnlyShortensAndStaysWithinItsFraction() {
        let backoff = Backoff(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(500), multiplier: 3, jitter: 0.4)
        var generator = SystemRandomNumberGenerator()
        for failures in 1...12 {
            let full = Backoff(initialDelay: .milliseconds(10), maximumDelay: .milliseconds(500), multiplier: 3, jitter: 0)
                .delay(afterFailures: failures, random: 0)
            #expect(backoff.delay(afterFailures: failures, random: 0) == full)
            #expect(backoff.delay(afterFailures: failures, random: 1) == full * 0.6)
            var seen = Set<Duration>()
            for _ in 0..<200 {
                let delay = backoff.delay(afterFailures: failures, random: Double.random(in: 0..<1, using: &generator))
                #expect(delay >= full * 0.6 && delay <= full, "\(delay) outside \(full * 0.6)…\(full)")
                #expect(delay <= .milliseconds(500))
                seen.insert(delay)
            }
            #expect(seen.count > 1, "the jitter varies the delay")
        }
    }

    @Test func delaysCountFailuresAndResetStartsOver() {
        var delays = Backoff(initialDelay: .milliseconds(5), maximumDelay: .milliseconds(40), jitter: 0).delays()
        #expect((1...5).map { _ in delays.next() } == [.milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(40)])
        #expect(delays.failures == 5)
        delays.reset()
        #expect(delays.failures == 0)
        #expect(delays.next() == .milliseconds(5))
        #expect(delays.next() == .milliseconds(10))
    }

    @Test func outOfRangeSettingsAreClamped() {
        let backoff = Backoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(10), multiplier: 0.5, jitter: 3)
        #expect(backoff.multiplier == 1 && backoff.jitter == 1)
        #expect(backoff.delay(afterFailures: 1, random: 0) == .milliseconds(10), "the bound wins over the first delay")
        #expect(backoff.delay(afterFailures: 4, random: -2) == .milliseconds(10), "a random number below 0 counts as 0")
        #expect(backoff.delay(afterFailures: 4, random: 0.5) == .milliseconds(5), "a jitter of 1 may take any part of the wait off")
    }

    @Test func theReconnectPolicyWaitsItsBackoff() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100), jitter: 0.3)
        for failures in 1...6 {
            for random in [0, 0.25, 0.5, 0.99] {
                #expect(policy.delay(afterFailures: failures, connectedBefore: true, random: random)
                    == policy.backoff.delay(afterFailures: failures, random: random))
            }
        }
    }
}
