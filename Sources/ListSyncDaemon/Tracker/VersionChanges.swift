/// A new version's changeset against the last good one, as the tracker publishes it: whether it
/// changes anything, what it counts for the metrics, and its stages' JSON encoding — computed
/// only when asked, so a version content-equal to the last good one encodes nothing.
struct VersionChanges {
    /// Whether the changeset has no stage.
    let isEmpty: Bool
    /// The records it inserts, deletes, updates and moves.
    let counts: RecordChanges
    /// The stages' encoding (*Changeset encoding* in docs/PROTOCOL.md).
    let stagesJSON: () -> [UInt8]
}
