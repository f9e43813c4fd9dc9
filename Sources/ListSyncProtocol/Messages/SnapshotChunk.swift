import ListFormats

/// One chunk of a snapshot: the whole list at ``cursor``, cut so a line stays around 256 KiB.
///
/// Chunks are numbered from 0; a section may continue in the next chunk (same
/// ``SnapshotSection/index``). A client builds the list from all chunks and, on the ``last`` one,
/// checks the ``digest``. Every chunk repeats the header fields (`watch` to `schema`), so each is
/// self-describing.
public struct SnapshotChunk: Hashable, Sendable {
    /// The watch.
    public var watch: String
    /// The version the snapshot shows.
    public var cursor: Cursor
    /// The chunk's number, from 0.
    public var chunk: Int
    /// Whether this is the last chunk.
    public var last: Bool
    /// `true`: replace whatever you hold for this watch.
    public var fresh: Bool
    /// Whether the list is sectioned; a linear list is one section, index 0, model `null`.
    public var sectioned: Bool
    /// The list's columns.
    public var schema: ListSchema
    /// The sections, or parts of sections, this chunk carries.
    public var sections: [SnapshotSection]
    /// On the last chunk, the digest of the whole list.
    public var digest: ListDigest?

    /// A chunk.
    public init(
        watch: String, cursor: Cursor, chunk: Int, last: Bool, fresh: Bool, sectioned: Bool, schema: ListSchema,
        sections: [SnapshotSection], digest: ListDigest?
    ) {
        self.watch = watch
        self.cursor = cursor
        self.chunk = chunk
        self.last = last
        self.fresh = fresh
        self.sectioned = sectioned
        self.schema = schema
        self.sections = sections
        self.digest = digest
    }
}
