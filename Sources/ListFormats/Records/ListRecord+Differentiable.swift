import ListDiff

extension ListRecord: Differentiable {
    /// The record's identity: its key, or its content when the list has no key.
    @inlinable
    public var differenceIdentifier: RecordIdentity {
        RecordIdentity(storage: storage, stableHash: slot.keyHash, key: slot.key)
    }

    /// Whether the records' content hashes are equal. O(1).
    @inlinable
    public func isContentEqual(to source: ListRecord) -> Bool {
        slot.content == source.slot.content
    }
}
