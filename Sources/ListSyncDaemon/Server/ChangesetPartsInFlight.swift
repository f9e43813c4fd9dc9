import DurableFiles
import ListSyncProtocol
import NIOCore

/// The parts of one changeset line (protocol version 2, *Changeset parts* in docs/PROTOCOL.md)
/// that a ``Subscription`` is sending: cut one at a time, each when the connection asks for it,
/// from the line as the history keeps it (in memory or read back from disk, shared, not copied)
/// by a ``ChangesetParts/Cutter`` — so a subscriber of a changeset of tens of MiB holds one part
/// beside the history's line, not a copy of the line in parts (issue 19).
///
/// A long line is a mapping of the file it was written to as it was encoded
/// (``ChangesetLineSpool``): the pages the cutter read are let go of once it laid the line out
/// and after each part, so that sending it keeps about a part of it resident, not the line.
///
/// A part's bytes count against the client-buffer budget from its cut until it is handed to the
/// connection (which counts it then until written, as any line of its own): the first part, cut
/// to learn that the line goes in parts, until it is asked for; a part never sent — the
/// subscription ended first — is released when the last reference goes.
final class ChangesetPartsInFlight {
    private let line: FileBytes
    private var cutter: ChangesetParts.Cutter
    private var held: Int
    private let budget: (any BufferBudget)?

    /// The parts of `line` when it is over `bound` bytes and can be cut; `nil` when it goes whole.
    init?(line: FileBytes, bound: Int, budget: (any BufferBudget)?) {
        guard line.count > bound else { return nil }
        // A line is one piece (an array or a mapping); one in several is gathered once.
        let line = line.isContiguous ? line : FileBytes(line.array)
        let cutter = line.withContiguousBytes(in: 0..<line.count) { ChangesetParts.Cutter($0, targetSize: bound) }
        // The cutter read the line whole to lay it out.
        line.releaseMappedPages()
        guard let cutter else { return nil }
        self.line = line
        self.cutter = cutter
        self.held = cutter.heldByteCount
        self.budget = budget
        budget?.charge(self.held)
    }

    /// The next part, no longer counted here; `nil` after the last.
    func nextPart() -> ByteBuffer? {
        self.budget?.release(self.held)
        self.held = 0
        let part = self.line.withContiguousBytes(in: 0..<self.line.count) { self.cutter.nextPart(of: $0) }
        self.line.releaseMappedPages()
        return part.map { ByteBuffer(bytes: $0) }
    }

    deinit {
        self.budget?.release(self.held)
    }
}
