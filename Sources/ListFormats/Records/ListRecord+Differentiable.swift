import ListDiff

extension ListRecord: Differentiable {
    /// The record's identity: its key, or its content when the list has no
    /// key. O(1), no reference counting.
    @inlinable
    public var differenceIdentifier: RecordIdentity {
        RecordIdentity(slot: slot, storage: storage)
    }

    /// Whether the records' content hashes are equal. O(1).
    @inlinable
    public func isContentEqual(to source: ListRecord) -> Bool {
        slot.content == source.slot.content
    }
}
