extension Changeset {
    /// This stage and its changeset's storage, when the stage's data is deferred to a storage of
    /// type `Storage` — which then answers single lookups without building the whole data.
    @inlinable
    func deferredStorage<Storage: DifferenceStorage>(as type: Storage.Type) -> (storage: Storage, stage: DiffStage)? {
        guard case .deferred(let deferred, let stage) = storedData, let storage = deferred.storage as? Storage else {
            return nil
        }
        return (storage, stage)
    }

    /// The value at `offset` of ``data``, built whole: for stages whose data is not deferred.
    @inlinable
    func dataValue(at offset: Int) -> Collection.Element {
        let data = self.data
        return data[data.index(data.startIndex, offsetBy: offset)]
    }
}
