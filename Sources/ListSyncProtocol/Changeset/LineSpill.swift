/// Where the bytes of a long line go while it is written, so that memory holds a bounded
/// stretch of it rather than the line (issue 19: a change of every row of a million-row list
/// makes a `changeset` line of several times the file).
///
/// ``ServerMessage/encodedChangeset(watch:cursor:digest:v1Digest:schema:changeset:source:target:spill:)``
/// hands the line's bytes written so far to ``spill(_:)`` each time they reach ``threshold``,
/// between two entries of a stage; what it returns is the rest of the line. The daemon's spill
/// writes them to a file and maps it once the line is whole.
public protocol LineSpill: AnyObject {
    /// How many bytes the line may hold in memory before they are handed over.
    var threshold: Int { get }

    /// Takes `bytes`, the line's bytes written since the last call, in order: it empties them
    /// (keeping their capacity) when it took them, and leaves them as they are when it could not
    /// (they stay in memory, and come again at the next call, with what follows them).
    func spill(_ bytes: inout [UInt8])
}

extension LineSpill {
    /// Hands `bytes` over when they reach ``threshold``.
    public func spillIfFull(_ bytes: inout [UInt8]) {
        if bytes.count >= self.threshold { self.spill(&bytes) }
    }
}
