import ListFormats

/// One part of a changeset too large for one line (protocol version 2, *Changeset parts* in
/// docs/PROTOCOL.md): a `changeset` message with `part` and `last`.
///
/// Every part names the changeset it belongs to (``watch``, ``cursor``, ``prevSeq``); its
/// ``stages`` are a run of the changeset's stages, the first of which continues the previous
/// part's last stage when ``continues`` is set; the last part alone carries ``digest`` and
/// ``schema``. ``ChangesetPartAssembly`` puts the parts back into the ``ChangesetMessage``.
public struct ChangesetPartMessage: Hashable, Sendable {
    /// The watch.
    public var watch: String
    /// The version after applying the whole changeset.
    public var cursor: Cursor
    /// The version the changeset applies to.
    public var prevSeq: UInt64
    /// The part's number, from 0.
    public var part: Int
    /// Whether this is the changeset's last part.
    public var last: Bool
    /// Whether the first of ``stages`` continues the previous part's last stage.
    public var continues: Bool
    /// The part's run of stages.
    public var stages: [ChangesetStage]
    /// On the last part: the digest of the whole list after applying.
    public var digest: ListDigest?
    /// On the last part, when the columns changed.
    public var schema: SchemaUpdate?
    /// The length of the line the part came in, when it was decoded from one (0 otherwise): what
    /// a client holding the parts counts against its byte bound.
    public var lineLength: Int

    /// A changeset part.
    public init(
        watch: String, cursor: Cursor, prevSeq: UInt64, part: Int, last: Bool, continues: Bool, stages: [ChangesetStage],
        digest: ListDigest?, schema: SchemaUpdate?, lineLength: Int = 0
    ) {
        self.watch = watch
        self.cursor = cursor
        self.prevSeq = prevSeq
        self.part = part
        self.last = last
        self.continues = continues
        self.stages = stages
        self.digest = digest
        self.schema = schema
        self.lineLength = lineLength
    }
}
