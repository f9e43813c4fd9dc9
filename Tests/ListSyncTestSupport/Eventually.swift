/// Polls `condition` every 10 ms until it holds; fails with `what` after `timeout`.
package func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out after \(timeout) waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
