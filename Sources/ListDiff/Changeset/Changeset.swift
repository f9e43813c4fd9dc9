/// One stage of a ``StagedChangeset``: changes that can be applied together as
/// one batch update, and the collection after them.
///
/// Index spaces follow UIKit's `performBatchUpdates`: deletions, updates and
/// move sources name positions in the state before the stage; insertions and
/// move targets name positions in the state after it.
///
/// The fields are DifferenceKit's. Unlike DifferenceKit, a changeset computed
/// by ``StagedChangeset/init(source:target:)`` does not hold a copy of the
/// list per stage: `data` is built when read, in O(*n*) — read it once per
/// stage, or use ``element(at:)`` for single values.
public struct Changeset<Collection: Swift.Collection> {
    /// The collection after this stage is applied.
    public var data: Collection {
        get { storedData.collection }
        set { storedData = .value(newValue) }
    }

    @usableFromInline
    var storedData: StageData<Collection>

    /// Sections deleted, at their index before the stage.
    public var sectionDeleted: [Int]
    /// Sections inserted, at their index after the stage.
    public var sectionInserted: [Int]
    /// Sections whose content changed. Computed changesets update sections in
    /// a stage of their own, where indices before and after are the same.
    public var sectionUpdated: [Int]
    /// Sections moved, from their index before the stage to their index after it.
    public var sectionMoved: [(source: Int, target: Int)]
    /// Elements deleted, at their path before the stage.
    public var elementDeleted: [ElementPath]
    /// Elements inserted, at their path after the stage.
    public var elementInserted: [ElementPath]
    /// Elements whose content changed, at their path before the stage.
    public var elementUpdated: [ElementPath]
    /// Elements moved, from their path before the stage to their path after it.
    public var elementMoved: [(source: ElementPath, target: ElementPath)]

    /// Creates a changeset.
    @inlinable
    public init(
        data: Collection,
        sectionDeleted: [Int] = [],
        sectionInserted: [Int] = [],
        sectionUpdated: [Int] = [],
        sectionMoved: [(source: Int, target: Int)] = [],
        elementDeleted: [ElementPath] = [],
        elementInserted: [ElementPath] = [],
        elementUpdated: [ElementPath] = [],
        elementMoved: [(source: ElementPath, target: ElementPath)] = []
    ) {
        self.init(
            storedData: .value(data),
            sectionDeleted: sectionDeleted,
            sectionInserted: sectionInserted,
            sectionUpdated: sectionUpdated,
            sectionMoved: sectionMoved,
            elementDeleted: elementDeleted,
            elementInserted: elementInserted,
            elementUpdated: elementUpdated,
            elementMoved: elementMoved
        )
    }

    @inlinable
    init(
        storedData: StageData<Collection>,
        sectionDeleted: [Int] = [],
        sectionInserted: [Int] = [],
        sectionUpdated: [Int] = [],
        sectionMoved: [(source: Int, target: Int)] = [],
        elementDeleted: [ElementPath] = [],
        elementInserted: [ElementPath] = [],
        elementUpdated: [ElementPath] = [],
        elementMoved: [(source: ElementPath, target: ElementPath)] = []
    ) {
        self.storedData = storedData
        self.sectionDeleted = sectionDeleted
        self.sectionInserted = sectionInserted
        self.sectionUpdated = sectionUpdated
        self.sectionMoved = sectionMoved
        self.elementDeleted = elementDeleted
        self.elementInserted = elementInserted
        self.elementUpdated = elementUpdated
        self.elementMoved = elementMoved
    }

    /// The number of section changes.
    @inlinable
    public var sectionChangeCount: Int {
        sectionDeleted.count + sectionInserted.count + sectionUpdated.count + sectionMoved.count
    }

    /// The number of element changes.
    @inlinable
    public var elementChangeCount: Int {
        elementDeleted.count + elementInserted.count + elementUpdated.count + elementMoved.count
    }

    /// The number of changes of both kinds.
    @inlinable
    public var changeCount: Int {
        sectionChangeCount + elementChangeCount
    }

    /// Whether any section changes.
    @inlinable
    public var hasSectionChanges: Bool {
        sectionChangeCount > 0
    }

    /// Whether any element changes.
    @inlinable
    public var hasElementChanges: Bool {
        elementChangeCount > 0
    }

    /// Whether anything changes.
    @inlinable
    public var hasChanges: Bool {
        changeCount > 0
    }
}

extension Changeset: Sendable where Collection: Sendable {}

extension Changeset: Equatable where Collection: Equatable {
    /// Changesets are equal when their data and their sets of changes are;
    /// the order in which changes are listed does not count.
    public static func == (lhs: Changeset, rhs: Changeset) -> Bool {
        func sameMoves<Index: Hashable>(_ lhs: [(source: Index, target: Index)], _ rhs: [(source: Index, target: Index)]) -> Bool {
            lhs.count == rhs.count
                && Set(lhs.map { [$0.source, $0.target] }) == Set(rhs.map { [$0.source, $0.target] })
        }
        return lhs.data == rhs.data
            && Set(lhs.sectionDeleted) == Set(rhs.sectionDeleted)
            && Set(lhs.sectionInserted) == Set(rhs.sectionInserted)
            && Set(lhs.sectionUpdated) == Set(rhs.sectionUpdated)
            && sameMoves(lhs.sectionMoved, rhs.sectionMoved)
            && Set(lhs.elementDeleted) == Set(rhs.elementDeleted)
            && Set(lhs.elementInserted) == Set(rhs.elementInserted)
            && Set(lhs.elementUpdated) == Set(rhs.elementUpdated)
            && sameMoves(lhs.elementMoved, rhs.elementMoved)
    }
}

extension Changeset: CustomDebugStringConvertible {
    public var debugDescription: String {
        var lines = ["Changeset("]
        func add<Value>(_ name: String, _ value: [Value]) {
            if !value.isEmpty { lines.append("    \(name): \(value),") }
        }
        add("sectionDeleted", sectionDeleted)
        add("sectionInserted", sectionInserted)
        add("sectionUpdated", sectionUpdated)
        add("sectionMoved", sectionMoved)
        add("elementDeleted", elementDeleted)
        add("elementInserted", elementInserted)
        add("elementUpdated", elementUpdated)
        add("elementMoved", elementMoved)
        lines.append("    data: \(String(reflecting: data))")
        lines.append(")")
        return lines.joined(separator: "\n")
    }
}
