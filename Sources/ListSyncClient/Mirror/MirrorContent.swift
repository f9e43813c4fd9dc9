import ListFormats
import ListSyncProtocol

/// The list a mirror holds, at a verified version.
struct MirrorContent: Sendable {
    /// The version.
    var cursor: Cursor
    /// Whether the list is sectioned.
    var sectioned: Bool
    /// The columns.
    var schema: ListSchema
    /// The sections; exactly one, with model `null`, when the list is linear.
    var sections: [MirroredSection]
    /// The digest of `schema` and `sections`, equal to the daemon's at `cursor`.
    var digest: ListDigest
    /// The definition ``digest`` follows: the protocol version of the connection.
    var digestVersion: DigestVersion
    /// The version 2 digest's tree of `schema` and `sections`, kept while ``digestVersion`` is 2
    /// and the records are held: each changeset's digest is then checked in proportion to what
    /// it changed (``DigestChangeSpan``), not the whole list.
    var tree: ListDigestTree?

    /// The tree to keep for a list with `schema` and `sections` checked with `version`: `nil`
    /// for version 1 (its digest has no tree). O(*n*) for version 2.
    static func tree(schema: ListSchema, sections: [MirroredSection], version: DigestVersion) -> ListDigestTree? {
        version == .v2 ? ListDigestTree(schema: schema, digestSections: sections) : nil
    }

    /// The `version` digest of a list with `schema` and `sections`, computed. O(*n*).
    static func digest(schema: ListSchema, sections: [MirroredSection], version: DigestVersion) -> ListDigest {
        self.digest(schema: schema, sections: sections.map { ($0.model.hash, $0.records.lazy.map(\.hash)) }, version: version)
    }

    /// The `version` digest of a list with `schema` and sections given by their model's hash and
    /// their records' hashes: the one place a client computes a ``ListDigest``, whether it holds
    /// the records or only their hashes (a snapshot streamed to a file). O(*n*).
    static func digest<RecordHashes: Collection<ContentHash>>(
        schema: ListSchema, sections: [(modelHash: ContentHash, recordHashes: RecordHashes)], version: DigestVersion
    ) -> ListDigest {
        var builder = ListDigest.Builder(schema: schema, version: version)
        for section in sections {
            builder.beginSection(modelHash: section.modelHash, recordCount: section.recordHashes.count)
            for hash in section.recordHashes {
                builder.addRecord(hash)
            }
        }
        return builder.finish()
    }
}
