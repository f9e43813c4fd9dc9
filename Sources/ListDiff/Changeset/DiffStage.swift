/// The five kinds of stage of a staged changeset, in the order they are applied.
///
/// Each stage can be applied as one batch update; empty stages are left out,
/// and a linear list never has the two section stages.
@usableFromInline
enum DiffStage: Int, Sendable, CaseIterable {
    /// Element updates, at source paths.
    case elementUpdates
    /// Section deletions and element deletions, at source indices and paths.
    case deletions
    /// Section inserts (target indices) and section moves.
    case sectionInsertionsAndMoves
    /// Element inserts (target paths) and element moves.
    case elementInsertionsAndMoves
    /// Section updates, at target indices.
    case sectionUpdates
}
