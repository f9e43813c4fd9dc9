import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The allowlist in force (``PeerAccess``), with a generation that counts its reloads.
///
/// A connection is checked against the list when it is accepted, but joins the
/// ``ConnectionRegistry`` — which a reload goes through to re-check open connections — only once
/// its pipeline is active. A reload in between would miss it; the generation taken at the
/// accept lets the connection see, once registered, that the list changed and check itself
/// again (``recheck(_:acceptedAt:pool:eventLoop:)``). Either the reload sees the registered
/// connection or the connection sees the new generation (both take a lock), so none escapes.
final class AccessList: Sendable {
    /// The list at one moment, and its generation.
    struct Snapshot: Sendable {
        let access: PeerAccess
        let generation: UInt64
    }

    private let current: NIOLockedValueBox<Snapshot>

    /// The list `access`, generation 0.
    init(_ access: PeerAccess) {
        self.current = NIOLockedValueBox(Snapshot(access: access, generation: 0))
    }

    /// The list in force now.
    var snapshot: Snapshot {
        self.current.withLockedValue { $0 }
    }

    /// A reload's new list: the generation moves on.
    func replace(with access: PeerAccess) {
        self.current.withLockedValue { $0 = Snapshot(access: access, generation: $0.generation &+ 1) }
    }

    /// Whether `peer`, accepted under generation `accepted`, is still allowed; `nil` when the
    /// list did not change since (nothing to check). Group lookups, which block, run on `pool`
    /// (inline without one: tests).
    func recheck(_ peer: PeerAccess.Peer, acceptedAt accepted: UInt64, pool: NIOThreadPool?, eventLoop: any EventLoop) -> EventLoopFuture<Bool>? {
        let now = self.snapshot
        guard now.generation != accepted else { return nil }
        if let decision = now.access.quickDecision(for: peer) {
            return eventLoop.makeSucceededFuture(decision)
        }
        guard let pool else { return eventLoop.makeSucceededFuture(now.access.allows(peer)) }
        return pool.runIfActive(eventLoop: eventLoop) { now.access.allows(peer) }
    }
}
