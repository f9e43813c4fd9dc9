import CListFormatsScan

extension ListRecord {
    /// Whether a `listsync_record` (the C scanners' records) is laid out as a
    /// `ListRecord` is, field for field, so that memory holding the one can
    /// be read as the other.
    static let hasCLayout: Bool = {
        typealias Record = MemoryLayout<ListRecord>
        typealias C = MemoryLayout<listsync_record>
        return Record.size == C.size && Record.stride == C.stride && Record.alignment == C.alignment
            && Record.offset(of: \.differenceIdentifier.hash.low) == C.offset(of: \.identity_low)
            && Record.offset(of: \.differenceIdentifier.hash.high) == C.offset(of: \.identity_high)
            && Record.offset(of: \.contentHash.low) == C.offset(of: \.content_low)
            && Record.offset(of: \.contentHash.high) == C.offset(of: \.content_high)
            && Record.offset(of: \.start) == C.offset(of: \.start)
            && Record.offset(of: \.length) == C.offset(of: \.length)
    }()

    /// Stops when ``hasCLayout`` does not hold: a change to `ListRecord`
    /// that `listsync_record` did not follow.
    @inline(__always)
    static func checkCLayout() {
        precondition(hasCLayout, "ListRecord and listsync_record differ")
    }
}
