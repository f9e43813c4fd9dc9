import NIOCore
import Synchronization

/// The memory the daemon may spend buffering for clients (`client_buffer_budget_mib`).
///
/// Counted: what each connection holds on its own — the unfinished request line read so far,
/// replies not yet written, and changeset lines read back from disk for it (older than the
/// history memory keeps) not yet written — and every snapshot being sent, once however many
/// subscribers share it (``EncodedSnapshot``). Changeset lines in memory, status and heartbeat
/// lines are shared by every subscriber and belong to the watches (their history), so they are
/// not counted per connection.
///
/// When a charge takes the total over the limit, the connections that have held buffered data the
/// longest — the slowest consumers: unwritable the longest, or with a line left unfinished the
/// longest — are cut off first (`goodbye` `slow_consumer`), until what they hold covers the excess.
/// What a connection holds is its own buffers plus the snapshots it is still sending of versions
/// that are no longer current; a connection holding neither is never cut off for the budget (one
/// that only reads the current snapshot slowly shares memory every new subscriber needs anyway).
final class ClientBufferBudget: BufferBudget {
    /// The most bytes the counted buffers may hold.
    let limit: Int
    private let used = Atomic<Int>(0)
    private let connections: ConnectionRegistry
    /// When the last pass over the connections ran (uptime, ns): passes are at least
    /// ``enforcementInterval`` apart, so a burst of charges costs one.
    private let lastEnforcement = Atomic<UInt64>(0)
    /// The shortest time between two passes over the connections.
    static let enforcementInterval: UInt64 = 10_000_000

    /// A budget of `limit` bytes for the buffers of `connections`.
    init(limit: Int, connections: ConnectionRegistry) {
        self.limit = limit
        self.connections = connections
    }

    /// The bytes counted now.
    var usedBytes: Int {
        self.used.load(ordering: .relaxed)
    }

    /// Counts `bytes` more; cuts connections off when the total goes over the limit.
    func charge(_ bytes: Int) {
        let total = self.used.wrappingAdd(bytes, ordering: .relaxed).newValue
        if total > self.limit {
            self.enforce()
        }
    }

    /// Counts `bytes` less.
    func release(_ bytes: Int) {
        self.used.wrappingSubtract(bytes, ordering: .relaxed)
    }

    /// Cuts off the connections that have held buffered data the longest until what they hold
    /// covers the excess. Connections already cut off count as freed.
    ///
    /// - Complexity: O(*n* log *n*) in the number of connections; at most one pass per
    ///   ``enforcementInterval``.
    private func enforce() {
        let now = NIODeadline.now().uptimeNanoseconds
        let last = self.lastEnforcement.load(ordering: .relaxed)
        guard now &- last >= Self.enforcementInterval,
            self.lastEnforcement.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        var excess = self.usedBytes - self.limit
        var holders: [(since: UInt64, bytes: Int, connection: ConnectionMailbox)] = []
        for connection in self.connections.all {
            if connection.isCutOff {
                excess -= connection.heldBytes
                continue
            }
            guard let since = connection.heldSince else { continue }
            let bytes = connection.heldBytes + connection.staleSnapshotBytes
            if bytes > 0 {
                holders.append((since, bytes, connection))
            }
        }
        holders.sort { $0.since < $1.since || ($0.since == $1.since && $0.bytes > $1.bytes) }
        for holder in holders {
            guard excess > 0 else { break }
            holder.connection.cutOff()
            excess -= holder.bytes
        }
    }
}
