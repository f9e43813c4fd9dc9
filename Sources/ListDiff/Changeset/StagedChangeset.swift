/// An ordered list of ``Changeset``s, each applicable as one batch update,
/// that together turn a source collection into a target collection.
///
/// Create one with ``init(source:target:)`` from two arrays of
/// ``Differentiable`` elements, or two arrays of ``DifferentiableSection``s.
/// Apply the stages in order; the last stage's `data` is the target.
public struct StagedChangeset<Collection: Swift.Collection> {
    @usableFromInline
    var changesets: ContiguousArray<Changeset<Collection>>

    /// Creates a staged changeset from changesets in the order they apply.
    @inlinable
    public init<C: Swift.Collection>(_ changesets: C) where C.Element == Changeset<Collection> {
        self.changesets = ContiguousArray(changesets)
    }
}

extension StagedChangeset: RandomAccessCollection, RangeReplaceableCollection, MutableCollection {
    /// Creates an empty staged changeset: nothing changes.
    @inlinable
    public init() {
        self.init([])
    }

    @inlinable
    public var startIndex: Int {
        changesets.startIndex
    }

    @inlinable
    public var endIndex: Int {
        changesets.endIndex
    }

    @inlinable
    public func index(after i: Int) -> Int {
        changesets.index(after: i)
    }

    @inlinable
    public subscript(position: Int) -> Changeset<Collection> {
        get { changesets[position] }
        set { changesets[position] = newValue }
    }

    @inlinable
    public mutating func replaceSubrange<C: Swift.Collection>(
        _ subrange: Range<Int>,
        with newElements: C
    ) where C.Element == Changeset<Collection> {
        changesets.replaceSubrange(subrange, with: newElements)
    }
}

extension StagedChangeset: Equatable where Collection: Equatable {}
extension StagedChangeset: Sendable where Collection: Sendable {}

extension StagedChangeset: CustomDebugStringConvertible {
    public var debugDescription: String {
        guard !isEmpty else { return "[]" }
        return "[\n" + map { "    " + $0.debugDescription.split(separator: "\n").joined(separator: "\n    ") }
            .joined(separator: ",\n") + "\n]"
    }
}

extension StagedChangeset {
    /// The stages of `storage`'s difference, each with its data deferred to `storage`, empty
    /// stages left out; the last stage's data is `target` itself.
    @inlinable
    init<Storage: DifferenceStorage>(storage: Storage, target: Collection) where Storage.Collection == Collection {
        let difference = storage.difference
        let deferred = DeferredStageData(storage: storage)
        var stages = ContiguousArray<Changeset<Collection>>()
        if !difference.elementUpdated.isEmpty {
            stages.append(Changeset(
                storedData: .deferred(deferred, .elementUpdates),
                elementUpdated: difference.elementUpdated
            ))
        }
        if !difference.sectionDeleted.isEmpty || !difference.elementDeleted.isEmpty {
            stages.append(Changeset(
                storedData: .deferred(deferred, .deletions),
                sectionDeleted: difference.sectionDeleted,
                elementDeleted: difference.elementDeleted
            ))
        }
        if !difference.sectionInserted.isEmpty || !difference.sectionMoved.isEmpty {
            stages.append(Changeset(
                storedData: .deferred(deferred, .sectionInsertionsAndMoves),
                sectionInserted: difference.sectionInserted,
                sectionMoved: difference.sectionMoved
            ))
        }
        if !difference.elementInserted.isEmpty || !difference.elementMoved.isEmpty {
            stages.append(Changeset(
                storedData: .deferred(deferred, .elementInsertionsAndMoves),
                elementInserted: difference.elementInserted,
                elementMoved: difference.elementMoved
            ))
        }
        if !difference.sectionUpdated.isEmpty {
            stages.append(Changeset(
                storedData: .deferred(deferred, .sectionUpdates),
                sectionUpdated: difference.sectionUpdated
            ))
        }
        if !stages.isEmpty {
            stages[stages.count - 1].storedData = .value(target)
        }
        self.init(stages)
    }
}
