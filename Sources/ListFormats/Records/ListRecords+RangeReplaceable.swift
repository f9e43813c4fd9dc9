extension ListRecords: RangeReplaceableCollection {
    /// Replaces the records in `subrange` with `newElements`: the records around it stay runs of
    /// their storage, the new ones are one new run — or, when `newElements` are records of runs
    /// (``ListRecords``, or a slice of them), their runs, shared. So the diff engine can build
    /// the state after a stage of a changeset (``ListDiff/StagedChangeset``) from a version's
    /// records without copying them whole. O(runs + new elements).
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == ListRecord {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= count, "range \(subrange) out of 0..<\(count)")
        let inserted: ListRecords
        if let records = newElements as? ListRecords {
            inserted = records
        } else if let slice = newElements as? Slice<ListRecords> {
            inserted = slice.base.records(in: slice.startIndex..<slice.endIndex)
        } else {
            inserted = ListRecords(Array(newElements))
        }
        self = records(in: 0..<subrange.lowerBound) + inserted + records(in: subrange.upperBound..<count)
    }
}
