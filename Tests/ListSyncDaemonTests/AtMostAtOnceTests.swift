import ListSyncTestSupport
import Synchronization
import Testing

/// `.atMostAtOnce(2)`, which the daemon's end-to-end suite runs under: never more than two of the
/// suite's test cases (parameterized ones each count) run at once, and two do; one marked `.alone`
/// runs with no other.
@Suite(.atMostAtOnce(2)) struct AtMostAtOnceTests {
    /// The cases running now, and the most that ever ran at once.
    static let running = Mutex((now: 0, most: 0))

    @Test(arguments: 0..<6) func noMoreThanTwoCasesRunAtOnce(_ number: Int) async throws {
        try await Self.run(number)
    }

    /// Plain tests share the same two places with the cases above.
    @Test func aPlainTestTakesAPlace() async throws {
        try await Self.run(6)
    }

    @Test func anotherPlainTestTakesAPlace() async throws {
        try await Self.run(7)
    }

    static func run(_ number: Int) async throws {
        let now = Self.running.withLock { running in
            running.now += 1
            running.most = max(running.most, running.now)
            return running.now
        }
        #expect(now <= 2, "case \(number) started beside \(now - 1) others")
        try await Task.sleep(for: .milliseconds(300))
        let most = Self.running.withLock { running in
            running.now -= 1
            return running.most
        }
        // Eight cases of 300 ms each: the first two start together, so every case that ends has
        // seen two at once (a gate of one place would never get there).
        #expect(most == 2, "case \(number): at most \(most) ran at once")
    }
}

/// `.alone` in an `.atMostAtOnce(2)` suite: a case marked so runs with no other beside it, and the
/// others still run two at a time.
@Suite(.atMostAtOnce(2)) struct AtMostAtOnceAloneTests {
    static let running = Mutex(0)

    /// Counts this case in for 300 ms; returns how many ran when it started and when it ended.
    static func run() async throws -> (atStart: Int, atEnd: Int) {
        let atStart = Self.running.withLock { running in
            running += 1
            return running
        }
        try await Task.sleep(for: .milliseconds(300))
        let atEnd = Self.running.withLock { running in
            running -= 1
            return running + 1
        }
        return (atStart, atEnd)
    }

    @Test(arguments: 0..<4) func otherCasesRunTwoAtATime(_ number: Int) async throws {
        let (atStart, _) = try await Self.run()
        #expect(atStart <= 2, "case \(number) started beside \(atStart - 1) others")
    }

    @Test(.alone, arguments: 0..<2) func aCaseMarkedAloneRunsWithNoOther(_ number: Int) async throws {
        let (atStart, atEnd) = try await Self.run()
        #expect(atStart == 1 && atEnd == 1, "alone case \(number) ran beside others: \(atStart), \(atEnd)")
    }
}
