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

    /// The `version` digest of a list with `schema` and `sections`, computed. O(*n*).
    static func digest(schema: ListSchema, sections: [MirroredSection], version: DigestVersion) -> ListDigest {
        var builder = ListDigest.Builder(schema: schema, version: version)
        for section in sections {
            builder.beginSection(modelHash: section.model.hash, recordCount: section.records.count)
            for record in section.records {
                builder.addRecord(record.hash)
            }
        }
        return builder.finish()
    }
}
