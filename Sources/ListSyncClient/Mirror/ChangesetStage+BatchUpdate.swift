import ListDiff
import ListSyncProtocol

extension ChangesetStage {
    /// The stage's operations as ListDiff reads a batch update, so that a decoded stage is checked
    /// against the same rules as the changesets ListDiff computes. `number` is the stage's offset
    /// in its changeset. O(operations).
    func batchUpdate(number: Int) -> BatchUpdate {
        BatchUpdate(
            stage: number, sectionDeleted: self.sectionDeleted, sectionInserted: self.sectionInserted.map(\.index),
            sectionUpdated: self.sectionUpdated.map(\.index), sectionMoved: self.sectionMoved.map { ($0.source, $0.target) },
            elementDeleted: self.elementDeleted, elementInserted: self.elementInserted.map(\.path),
            elementUpdated: self.elementUpdated.map(\.path), elementMoved: self.elementMoved.map { ($0.source, $0.target) })
    }
}
