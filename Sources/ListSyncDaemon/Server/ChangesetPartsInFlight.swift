import ListSyncProtocol
import NIOCore

/// The parts of one changeset line (protocol version 2, *Changeset parts* in docs/PROTOCOL.md)
/// that a ``Subscription`` is sending: cut from the line as the history keeps it (in memory or
/// read back from disk) by ``ChangesetParts``, and this connection's own copy.
///
/// Their bytes count against the client-buffer budget from the cut until each part is handed to
/// the connection (which counts it then until written, as any line of its own); parts never sent —
/// the subscription ended first — are released when the last reference goes.
final class ChangesetPartsInFlight {
    private var parts: [ByteBuffer]
    private var next = 0
    private var held: Int
    private let budget: (any BufferBudget)?

    /// The parts of `line` when it is over `bound` bytes and can be cut; `nil` when it goes whole.
    init?(line: ByteBuffer, bound: Int, budget: (any BufferBudget)?) {
        guard line.readableBytes > bound, let parts = ChangesetParts.split(line.readableBytesView, targetSize: bound) else { return nil }
        self.parts = parts.map { ByteBuffer(bytes: $0) }
        self.held = self.parts.reduce(0) { $0 + $1.readableBytes }
        self.budget = budget
        budget?.charge(self.held)
    }

    /// The next part, no longer counted here; `nil` after the last.
    func nextPart() -> ByteBuffer? {
        guard self.next < self.parts.count else { return nil }
        let part = self.parts[self.next]
        self.parts[self.next] = ByteBuffer()
        self.next += 1
        self.held -= part.readableBytes
        self.budget?.release(part.readableBytes)
        return part
    }

    deinit {
        self.budget?.release(self.held)
    }
}
