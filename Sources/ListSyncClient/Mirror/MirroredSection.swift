import ListFormats
import ListSyncProtocol

/// One section of a mirrored list: the model that names it and its records, each with the value
/// and content hash the daemon sent.
///
/// A linear list is one section whose model is `null`.
public struct MirroredSection: Hashable, Sendable {
    /// The section's model — the `section_by` value or the JSON member name; `null` for a linear
    /// list — and its content hash.
    public var model: ChangesetStage.Section
    /// The records, in order.
    public var records: [ChangesetStage.Record]

    /// A section with `model` holding `records`.
    public init(model: ChangesetStage.Section, records: [ChangesetStage.Record]) {
        self.model = model
        self.records = records
    }
}
