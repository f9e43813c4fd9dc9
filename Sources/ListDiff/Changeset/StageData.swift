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
    @usableFromInline let storage: any DifferenceStorage

    @inlinable
    init<Storage: DifferenceStorage>(storage: Storage) where Storage.Collection == Collection {
        self.storage = storage
        self.materialize = { storage.data(after: $0) }
    }
}

/// What a ``DeferredStageData`` builds a stage's data from: a difference with its source and target.
@usableFromInline
protocol DifferenceStorage: AnyObject {
    associatedtype Collection: Swift.Collection

    /// The difference the stages are made of.
    var difference: ListDifference { get }

    /// The list after `stage`. O(*n*).
    func data(after stage: DiffStage) -> Collection
}

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

extension DeferredStageData: @unchecked Sendable where Collection: Sendable {}
extension StageData: Sendable where Collection: Sendable {}
