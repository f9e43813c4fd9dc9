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

extension StageData: Sendable where Collection: Sendable {}
