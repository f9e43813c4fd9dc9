/// What a ``DeferredStageData`` builds a stage's data from: a difference with its source and target.
@usableFromInline
protocol DifferenceStorage: AnyObject {
    associatedtype Collection: Swift.Collection

    /// The difference the stages are made of.
    var difference: ListDifference { get }

    /// The list after `stage`. O(*n*).
    func data(after stage: DiffStage) -> Collection
}
