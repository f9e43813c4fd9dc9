import ListDiff

extension ListRecord: Differentiable {
    /// Whether the records' content hashes are equal. O(1).
    @inlinable
    public func isContentEqual(to source: ListRecord) -> Bool {
        contentHash == source.contentHash
    }
}
