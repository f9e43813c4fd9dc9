/// The `data` of a ``Changeset``: either a collection, or a promise to build
/// the state after one stage of a computed difference when it is asked for.
///
/// Deferring is what lets ``StagedChangeset`` avoid a copy of the whole list
/// per stage: only the last stage's data, the target, is held as a value.
@usableFromInline
enum StageData<Collection: Swift.Collection> {
    case value(Collection)
    case deferred(DeferredStageData<Collection>, DiffStage)

    @inlinable
    var collection: Collection {
        switch self {
        case .value(let collection):
            return collection
        case .deferred(let deferred, let stage):
            return deferred.materialize(stage)
        }
    }
}

/// The source, the target and their difference, shared by the stages of one
/// staged changeset, able to build the state after any stage.
///
/// Immutable once made; `storage` is the typed storage
/// (``LinearDifferenceStorage`` or ``SectionedDifferenceStorage``) that
/// constrained extensions use for O(1) lookups of single values.
@usableFromInline
final class DeferredStageData<Collection: Swift.Collection> {
    @usableFromInline let materialize: (DiffStage) -> Collection
    @usableFromInline let storage: AnyObject

    @inlinable
    init(storage: AnyObject, materialize: @escaping (DiffStage) -> Collection) {
        self.storage = storage
        self.materialize = materialize
    }
}

extension DeferredStageData: @unchecked Sendable where Collection: Sendable {}
extension StageData: Sendable where Collection: Sendable {}
