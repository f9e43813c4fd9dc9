import ListFormats

/// One new version of a watch's list, as the staged changeset from the previous one.
///
/// A client whose cursor's `seq` is ``prevSeq`` applies ``stages`` and then has the list at
/// ``cursor``, whose SHA-256 ``digest`` it can check. A client at another `seq` missed something
/// and resubscribes with its cursor.
public struct ChangesetMessage: Hashable, Sendable {
    /// The watch.
    public var watch: String
    /// The version after applying.
    public var cursor: Cursor
    /// The version the changeset applies to: always `cursor.seq - 1`.
    public var prevSeq: UInt64
    /// The staged changeset's stages, with the values of what they insert and update (encoded as
    /// in *Changeset encoding*, docs/PROTOCOL.md).
    public var stages: [ChangesetStage]
    /// The digest of the whole list after applying.
    public var digest: ListDigest
    /// Present only when the columns changed.
    public var schema: SchemaUpdate?

    /// A changeset message.
    public init(watch: String, cursor: Cursor, prevSeq: UInt64, stages: [ChangesetStage], digest: ListDigest, schema: SchemaUpdate?) {
        self.watch = watch
        self.cursor = cursor
        self.prevSeq = prevSeq
        self.stages = stages
        self.digest = digest
        self.schema = schema
    }
}
