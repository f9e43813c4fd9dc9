import ListFormats
import ListSyncProtocol

/// The chunks of one snapshot, put together as they arrive.
///
/// Chunks must come numbered from 0 without gaps, all for the same cursor; a section either
/// continues the last one (same index and model) or is the next one. The list is used only once
/// the last chunk has come and the digest matches (``MirroredList/apply(_:keepingList:)``).
///
/// An assembly that does not keep the list keeps each record's hash alone (16 bytes), enough to
/// check the digest: its consumer keeps the records (writes them out) as the chunks arrive.
struct SnapshotAssembly: Sendable {
    /// The version the snapshot shows.
    let cursor: Cursor
    /// Whether the list is sectioned.
    let sectioned: Bool
    /// The columns.
    let schema: ListSchema
    /// Whether the records are kept (else only their hashes).
    let keepsList: Bool
    /// The number the next chunk must have.
    private(set) var nextChunk = 0
    /// The sections received so far; without the records when ``keepsList`` is false.
    private(set) var sections: [MirroredSection] = []
    /// The records' hashes, section by section, when ``keepsList`` is false: in blocks, one a
    /// chunk, so that they grow without an array of them all being copied to grow (which would
    /// double their peak).
    private var recordHashes: [[[ContentHash]]] = []

    /// An assembly for the snapshot that `first` (chunk 0) starts.
    init(first: SnapshotChunk, keepsList: Bool = true) {
        self.cursor = first.cursor
        self.sectioned = first.sectioned
        self.schema = first.schema
        self.keepsList = keepsList
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
                self.sections.append(MirroredSection(model: part.section, records: self.keepsList ? part.records : []))
                if !self.keepsList { self.recordHashes.append([part.records.map(\.hash)]) }
            } else if part.index == self.sections.count - 1, self.sections[part.index].model == part.section {
                if self.keepsList {
                    self.sections[part.index].records.append(contentsOf: part.records)
                } else {
                    self.recordHashes[part.index].append(part.records.map(\.hash))
                }
            } else {
                throw outOfOrder("section \(part.index) does not follow the \(self.sections.count) sections received")
            }
        }
        self.nextChunk += 1
    }

    /// The complete list, once the last chunk is in: checks its shape and its `version` digest.
    /// Without the records (``keepsList`` false), the sections come back empty.
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
        // Holding the records at version 2, the tree the changesets that follow are checked
        // with gives the digest.
        let tree = self.keepsList ? MirrorContent.tree(schema: self.schema, sections: self.sections, version: version) : nil
        let computed =
            tree?.digest
            ?? (self.keepsList
                ? MirrorContent.digest(schema: self.schema, sections: self.sections, version: version)
                : MirrorContent.digest(
                    schema: self.schema, sections: zip(self.sections, self.recordHashes).map { ($0.model.hash, $1.joined()) }, version: version))
        guard computed == digest else { throw .digestMismatch(cursor: self.cursor, expected: digest, computed: computed) }
        return MirrorContent(cursor: self.cursor, sectioned: self.sectioned, schema: self.schema, sections: self.sections, digest: digest,
            digestVersion: version, tree: tree)
    }
}
