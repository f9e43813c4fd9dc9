/// The source, the target and their difference, shared by the stages of one
/// staged changeset, able to build the state after any stage.
///
/// Immutable once made; `storage` is the typed storage
/// (``LinearDifferenceStorage`` or ``SectionedDifferenceStorage``) that
/// constrained extensions use for O(1) lookups of single values.
@usableFromInline
final class DeferredStageData<Collection: Swift.Collection> {
    @usableFromInline let materialize: (DiffStage) -> Collection
    @usableFromInline let storage: any DifferenceStorage

    @inlinable
    init<Storage: DifferenceStorage>(storage: Storage) where Storage.Collection == Collection {
        self.storage = storage
        self.materialize = { storage.data(after: $0) }
    }
}

extension DeferredStageData: @unchecked Sendable where Collection: Sendable {}
