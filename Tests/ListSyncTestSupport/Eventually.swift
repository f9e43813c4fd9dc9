import Glibc

/// Polls `condition` every 10 ms until it holds; fails with `what` after `timeout`.
package func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out after \(timeout) waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// The same wait for synchronous tests (the daemon's end-to-end tests, which drive blocking
/// sockets): polls `condition` every 10 ms, sleeping the calling thread. Never call it from an
/// async context; use ``eventually(_:timeout:_:)`` there.
package func eventuallyBlocking(_ what: String, timeout: Duration = .seconds(20), _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out after \(timeout) waiting until \(what)") }
        usleep(10_000)
    }
}
