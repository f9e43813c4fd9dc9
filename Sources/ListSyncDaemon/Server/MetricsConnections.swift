import Logging
import NIOCore
import Synchronization

/// The open connections of the metrics endpoint, never more than ``limit``.
///
/// A connection is idle from its acceptance and after each response, busy while it is answered.
/// At the cap, a new connection takes the place of the one idle longest, which is closed: idle
/// connections (a client that connects and never asks, or keeps a connection it no longer
/// uses) can never lock a scraper out. When every connection is busy, the new one is closed at
/// once. Closing at the cap is logged once when it starts and once when the count falls below
/// the cap again, with how many were closed — not once per connection.
final class MetricsConnections: Sendable {
    /// What becomes of a connection just accepted.
    enum Admission {
        /// It is served.
        case admitted
        /// It is served; `evicted`, the connection idle longest, is to be closed.
        case admittedEvicting(_ evicted: any Channel)
        /// It is to be closed: the cap is reached and every connection is busy.
        case refused
    }

    private struct Entry {
        let channel: any Channel
        /// Since when the connection waits for a request; `nil` while one is answered.
        var idleSince: NIODeadline?
    }

    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        /// Connections closed since the cap was reached; `nil` while below it.
        var closedAtCap: Int?
    }

    /// The most connections open at once.
    let limit: Int
    private let state = Mutex(State())
    private let logger: Logger

    init(limit: Int, logger: Logger) {
        self.limit = max(1, limit)
        self.logger = logger
    }

    /// Takes in `channel`, just accepted, if it can be served (see ``Admission``).
    func admit(_ channel: any Channel) -> Admission {
        let (admission, startsClosing) = self.state.withLock { state -> (Admission, Bool) in
            let entry = Entry(channel: channel, idleSince: .now())
            guard state.open.count >= self.limit else {
                state.open[ObjectIdentifier(channel)] = entry
                return (.admitted, false)
            }
            let startsClosing = state.closedAtCap == nil
            state.closedAtCap = (state.closedAtCap ?? 0) + 1
            let idle = state.open.compactMap { key, value in value.idleSince.map { (key: key, since: $0) } }
            guard let longest = idle.min(by: { $0.since < $1.since }), let evicted = state.open.removeValue(forKey: longest.key) else {
                return (.refused, startsClosing)
            }
            state.open[ObjectIdentifier(channel)] = entry
            return (.admittedEvicting(evicted.channel), startsClosing)
        }
        if startsClosing {
            self.logger.warning(
                "metrics connections at the cap: the connection idle longest is closed for each new one (the new one when none is idle)",
                metadata: ["limit": "\(self.limit)"])
        }
        return admission
    }

    /// `channel` begins answering a request.
    func noteBusy(_ channel: any Channel) {
        self.state.withLock { $0.open[ObjectIdentifier(channel)]?.idleSince = nil }
    }

    /// `channel` answered its request and waits for another.
    func noteIdle(_ channel: any Channel) {
        self.state.withLock { $0.open[ObjectIdentifier(channel)]?.idleSince = .now() }
    }

    /// `channel` closed.
    func remove(_ channel: any Channel) {
        let closedAtCap = self.state.withLock { state -> Int? in
            guard state.open.removeValue(forKey: ObjectIdentifier(channel)) != nil, state.open.count < self.limit,
                let closed = state.closedAtCap
            else { return nil }
            state.closedAtCap = nil
            return closed
        }
        if let closedAtCap {
            self.logger.info(
                "metrics connections below the cap again", metadata: ["limit": "\(self.limit)", "closed at the cap": "\(closedAtCap)"])
        }
    }
}
