import ListFormats

/// A section, or a run of its records, in a snapshot chunk.
public struct SnapshotSection: Hashable, Sendable {
    /// The section's position in the list, from 0.
    public var index: Int
    /// The section's model — the `section_by` value or member name; `null` for a linear list —
    /// and its content hash, for the digest.
    public var section: ChangesetStage.Section
    /// The records, encoded as in changesets: value and content hash.
    public var records: [ChangesetStage.Record]

    /// A section part.
    public init(index: Int, section: ChangesetStage.Section, records: [ChangesetStage.Record]) {
        self.index = index
        self.section = section
        self.records = records
    }
}
