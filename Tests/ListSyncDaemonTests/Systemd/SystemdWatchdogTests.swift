import Testing

@testable import ListSyncDaemon

@Suite("SystemdWatchdog")
struct SystemdWatchdogTests {
    @Test("WATCHDOG_USEC gives the timeout; pings are due every half of it")
    func interval() throws {
        let watchdog = try #require(try SystemdWatchdog(environment: environment(["WATCHDOG_USEC": "30000000"])))
        #expect(watchdog.timeout == .seconds(30))
        #expect(watchdog.pingInterval == .seconds(15))
        let odd = try #require(try SystemdWatchdog(environment: environment(["WATCHDOG_USEC": "3"])))
        #expect(odd.pingInterval == .nanoseconds(1500))
    }

    @Test("WATCHDOG_PID decides whether the watchdog is ours")
    func pid() throws {
        #expect(try SystemdWatchdog(environment: environment(["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "4242"])) != nil)
        #expect(try SystemdWatchdog(environment: environment(["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"])) == nil)
        #expect(try SystemdWatchdog(environment: environment(["WATCHDOG_PID": "4242"])) == nil)
    }

    @Test(
        "malformed values are errors",
        arguments: [["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "-5"], ["WATCHDOG_USEC": "30s"], ["WATCHDOG_USEC": "1", "WATCHDOG_PID": "x"]]
    )
    func malformed(variables: [String: String]) {
        #expect(throws: SystemdError.self) { try SystemdWatchdog(environment: environment(variables)) }
    }
}
