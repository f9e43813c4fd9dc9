import ListSyncProtocol

/// A new version's changeset against the last good one, as the tracker publishes it: whether it
/// changes anything, what it counts for the metrics, and its `changeset` line — encoded only when
/// asked, so a version content-equal to the last good one encodes nothing, and written straight
/// into the line from the records' bytes (no copy of the stages beside it: a change of every row).
struct VersionChanges {
    /// Whether the changeset has no stage.
    let isEmpty: Bool
    /// The records it inserts, deletes, updates and moves.
    let counts: RecordChanges
    /// The `changeset` line of the version named by the cursor, with its digests and schema
    /// update (*Changeset encoding* in docs/PROTOCOL.md).
    let line: (_ watch: String, _ cursor: Cursor, _ digest: ListDigest, _ v1Digest: ListDigest?, _ schema: SchemaUpdate?) -> [UInt8]
}
