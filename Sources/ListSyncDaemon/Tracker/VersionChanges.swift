import DurableFiles
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
    /// update (*Changeset encoding* in docs/PROTOCOL.md); with a spill, what it did not take.
    let line:
        (_ watch: String, _ cursor: Cursor, _ digest: ListDigest, _ v1Digest: ListDigest?, _ schema: SchemaUpdate?, _ spill: (any LineSpill)?) ->
            [UInt8]

    /// The whole `changeset` line (``line``): with `spoolDirectory` (a watch whose state is saved
    /// and mapped), a line past ``ChangesetLineSpool/defaultThreshold`` is written to a file
    /// there as it is encoded and held as its mapping (issue 19); otherwise, and when the spool
    /// cannot give it back, an array.
    func encodedLine(
        watch: String, cursor: Cursor, digest: ListDigest, v1Digest: ListDigest?, schema: SchemaUpdate?, spoolDirectory: String?
    ) -> FileBytes {
        if let spoolDirectory {
            let spool = ChangesetLineSpool(directory: spoolDirectory)
            if let line = spool.finish(self.line(watch, cursor, digest, v1Digest, schema, spool)) { return line }
        }
        return FileBytes(self.line(watch, cursor, digest, v1Digest, schema, nil))
    }
}
