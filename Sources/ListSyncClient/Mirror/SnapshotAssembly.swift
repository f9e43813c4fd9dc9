import ListFormats
import ListSyncProtocol

/// The chunks of one snapshot, put together as they arrive.
///
/// Chunks must come numbered from 0 without gaps, all for the same cursor; a section either
/// continues the last one (same index and model) or is the next one. The list is used only once
/// the last chunk has come and the digest matches (``MirroredList/apply(_:)-(SnapshotChunk)``).
struct SnapshotAssembly: Sendable {
    /// The version the snapshot shows.
    let cursor: Cursor
    /// Whether the list is sectioned.
    let sectioned: Bool
    /// The columns.
    let schema: ListSchema
    /// The number the next chunk must have.
    private(set) var nextChunk = 0
    /// The sections received so far.
    private(set) var sections: [MirroredSection] = []

    /// An assembly for the snapshot that `first` (chunk 0) starts.
    init(first: SnapshotChunk) {
        self.cursor = first.cursor
        self.sectioned = first.sectioned
        self.schema = first.schema
    }

    /// Adds the next chunk.
    ///
    /// - Complexity: O(records in the chunk).
    mutating func append(_ chunk: SnapshotChunk) throws(MirrorError) {
        func outOfOrder(_ reason: String) -> MirrorError {
            .snapshotOutOfOrder(cursor: chunk.cursor, chunk: chunk.chunk, reason: reason)
        }
        guard chunk.chunk == self.nextChunk else { throw outOfOrder("expected chunk \(self.nextChunk)") }
        guard chunk.cursor == self.cursor else { throw outOfOrder("the snapshot being received is at \(self.cursor)") }
        for part in chunk.sections {
            if part.index == self.sections.count {
                self.sections.append(MirroredSection(model: part.section, records: part.records))
            } else if part.index == self.sections.count - 1, self.sections[part.index].model == part.section {
                self.sections[part.index].records.append(contentsOf: part.records)
            } else {
                throw outOfOrder("section \(part.index) does not follow the \(self.sections.count) sections received")
            }
        }
        self.nextChunk += 1
    }

    /// The complete list, once the last chunk is in: checks its shape and its `version` digest.
    ///
    /// - Complexity: O(*n*), for the digest.
    func content(digest: ListDigest?, version: DigestVersion) throws(MirrorError) -> MirrorContent {
        func malformed(_ reason: String) -> MirrorError {
            .snapshotOutOfOrder(cursor: self.cursor, chunk: self.nextChunk - 1, reason: reason)
        }
        guard let digest else { throw malformed("the last chunk has no digest") }
        if !self.sectioned {
            guard self.sections.count == 1, self.sections[0].model.model == .null else {
                throw malformed("a linear list must be one section with model null")
            }
        }
        let computed = MirrorContent.digest(schema: self.schema, sections: self.sections, version: version)
        guard computed == digest else { throw .digestMismatch(cursor: self.cursor, expected: digest, computed: computed) }
        return MirrorContent(cursor: self.cursor, sectioned: self.sectioned, schema: self.schema, sections: self.sections, digest: digest,
            digestVersion: version)
    }
}
