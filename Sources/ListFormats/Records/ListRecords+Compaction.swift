extension ListRecords {
    /// The most runs a version keeps before it is compacted: beyond them a lookup by index
    /// (O(log runs)) and the run list itself start to cost what one array would not.
    public static let compactionRunLimit = 64

    /// Whether these records keep more storage alive than they are worth — arrays of more than a
    /// quarter beyond the records the runs take of them plus `slack` records, or more than
    /// ``compactionRunLimit`` runs — the rule the tracker applies to a version's bytes (a quarter
    /// beyond its size, and a slack).
    ///
    /// Runs of mappings (issue 19: a saved version's records, mapped from the file the daemon
    /// wrote them to) cost no memory but what is read of them, and that file is compacted by its
    /// writer (which writes the compacted records to the file, not to a new array): so mapped
    /// storage is not counted, and records that hold mappings are compacted here only beyond
    /// four times ``compactionRunLimit`` runs. Without mappings the rule is the same as ever.
    public func needsCompaction(slack: Int) -> Bool {
        guard !isContiguous else { return false }
        let mapped = holdsMappings
        guard runs.count <= (mapped ? 4 * Self.compactionRunLimit : Self.compactionRunLimit) else { return true }
        var seen = Set<UInt>()
        var arrayStorage = 0
        var arrayRecords = 0
        for run in runs where run.storage.mappedRegion == nil {
            arrayRecords += run.range.count
            if seen.insert(run.storageAddress).inserted {
                arrayStorage += run.storage.count
            }
        }
        return arrayStorage > arrayRecords + arrayRecords / 4 + slack
    }

    /// These records, or one new array of them (their shifts applied) when
    /// ``needsCompaction(slack:)``: a large change that keeps a few records at the ends would
    /// otherwise keep the whole storage of the version before it alive, and runs of versions
    /// long replaced would pile up. O(1) when nothing is to be done, O(*n*) when it copies.
    public func compacted(slack: Int) -> ListRecords {
        needsCompaction(slack: slack) ? ListRecords(array) : self
    }
}
