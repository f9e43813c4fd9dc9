import NIOCore
import Synchronization

/// Notices a connection that has gone silent: how long the client has been *waiting* for the
/// daemon's next line, so a consumer that is slow to take updates (and so stops reading) never
/// counts as a dead daemon.
///
/// The daemon sends a heartbeat to idle connections every 15 s by default; a connection that stays
/// silent much longer than that is gone (a daemon frozen, a network filesystem hiccup) and is
/// closed, which makes the subscriber reconnect.
final class ConnectionActivity: Sendable {
    private struct State {
        /// When the client started waiting for the next line; `nil` while it is not waiting.
        var waitingSince: ContinuousClock.Instant?
        /// Whether the connection was closed for silence.
        var timedOut = false
    }

    private let state = Mutex(State())

    init() {}

    /// The client starts waiting for a line.
    func beginWaiting() {
        self.state.withLock { $0.waitingSince = .now }
    }

    /// A line arrived (or the wait ended otherwise).
    func endWaiting() {
        self.state.withLock { $0.waitingSince = nil }
    }

    /// Whether the connection was closed for silence.
    var timedOut: Bool {
        self.state.withLock { $0.timedOut }
    }

    /// Closes `channel` once the client has waited `timeout` for a line; returns then, or when
    /// the task is cancelled. Checks four times per `timeout`.
    func closeWhenSilent(_ channel: any Channel, after timeout: Duration) async {
        while true {
            do {
                try await Task.sleep(for: timeout / 4)
            } catch {
                return
            }
            let silent = self.state.withLock { state -> Bool in
                guard let since = state.waitingSince, ContinuousClock.now - since >= timeout else { return false }
                state.timedOut = true
                return true
            }
            if silent {
                channel.close(promise: nil)
                return
            }
        }
    }
}
