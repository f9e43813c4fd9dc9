import Testing

@testable import ListSyncClient

@Suite struct ReconnectPolicyTests {
    @Test func delaysDoubleUpToTheMaximum() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2, jitter: 0)
        let delays = (1...6).map { policy.delay(afterFailures: $0, connectedBefore: true, random: 0.5) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
    }

    @Test func jitterShortensTheWaitByAtMostItsFraction() throws {
        let policy = ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(1), jitter: 0.25)
        #expect(policy.delay(afterFailures: 1, connectedBefore: true, random: 0) == .seconds(1))
        let shortest = try #require(policy.delay(afterFailures: 1, connectedBefore: true, random: 0.999_999))
        #expect(shortest > .milliseconds(750) && shortest < .milliseconds(751))
        #expect(policy.delay(afterFailures: 1, connectedBefore: true, random: 0.5) == .milliseconds(875))
    }

    @Test func attemptLimitsDependOnWhetherAConnectionEverWorked() {
        let policy = ReconnectPolicy(initialAttempts: 2, reconnectAttempts: 3)
        // Two first attempts: after the first failure one more, after the second none.
        #expect(policy.delay(afterFailures: 1, connectedBefore: false, random: 0) != nil)
        #expect(policy.delay(afterFailures: 2, connectedBefore: false, random: 0) == nil)
        // Three reconnections after a lost connection.
        #expect(policy.delay(afterFailures: 3, connectedBefore: true, random: 0) != nil)
        #expect(policy.delay(afterFailures: 4, connectedBefore: true, random: 0) == nil)
        #expect(ReconnectPolicy.never.delay(afterFailures: 1, connectedBefore: false, random: 0) == nil)
        #expect(ReconnectPolicy.never.delay(afterFailures: 1, connectedBefore: true, random: 0) == nil)
        #expect(ReconnectPolicy().delay(afterFailures: 1000, connectedBefore: true, random: 0) == .seconds(5))
    }

    @Test func defaultSocketFollowsTheDaemonsRule() {
        #expect(ClientConfiguration.defaultSocketPath(environment: ["LISTSYNC_SOCKET": "/tmp/x.sock"], userID: 0) == "/tmp/x.sock")
        #expect(ClientConfiguration.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], userID: 1000) == "/run/user/1000/listsyncd.sock")
        #expect(ClientConfiguration.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/0"], userID: 0) == "/run/listsyncd/listsyncd.sock")
        #expect(ClientConfiguration.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "relative"], userID: 1000) == "/run/listsyncd/listsyncd.sock")
        #expect(ClientConfiguration.defaultSocketPath(environment: [:], userID: 1000) == "/run/listsyncd/listsyncd.sock")
    }
}
