extension ListRecords {
    /// The most runs a version keeps before it is compacted: beyond them a lookup by index
    /// (O(log runs)) and the run list itself start to cost what one array would not.
    public static let compactionRunLimit = 64

    /// Whether these records keep more storage alive than they are worth — more than a quarter
    /// beyond their count plus `slack` records, or more than ``compactionRunLimit`` runs — the
    /// rule the tracker applies to a version's bytes (a quarter beyond its size, and a slack).
    public func needsCompaction(slack: Int) -> Bool {
        guard !isContiguous else { return false }
        return runs.count > Self.compactionRunLimit || storageRecordCount > count + count / 4 + slack
    }

    /// These records, or one new array of them (their shifts applied) when
    /// ``needsCompaction(slack:)``: a large change that keeps a few records at the ends would
    /// otherwise keep the whole storage of the version before it alive, and runs of versions
    /// long replaced would pile up. O(1) when nothing is to be done, O(*n*) when it copies.
    public func compacted(slack: Int) -> ListRecords {
        needsCompaction(slack: slack) ? ListRecords(array) : self
    }
}
