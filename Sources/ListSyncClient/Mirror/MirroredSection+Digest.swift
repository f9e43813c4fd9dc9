import ListFormats
import ListSyncProtocol

extension ListDigest {
    /// The digest of a list held as mirrored sections, computed as a ``MirroredList`` checks its
    /// own: for consumers that keep sections of their own (the database sinks) and prove them
    /// against the daemon's digest the same way, in `version` (theirs speak protocol version 1).
    /// O(*n*).
    public init(schema: ListSchema, sections: [MirroredSection], version: DigestVersion = .v1) {
        self = MirrorContent.digest(schema: schema, sections: sections, version: version)
    }
}
