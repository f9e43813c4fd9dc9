import ListDiff
import ListFormats

/// Encodes a snapshot of a list as chunked `snapshot` lines, one chunk at a time.
///
/// A chunk is closed after the record that brings it to ``targetChunkSize`` bytes, so a line
/// stays around that size unless one record is larger. Chunks are produced on demand with
/// ``nextChunk()``: a server encodes the next one only when the subscriber's connection can take
/// it, so a snapshot of a large list costs one chunk of memory per subscriber, not the whole list.
///
/// Every section appears, empty ones too; a section continues in the next chunk with the same
/// index. The last chunk carries the digest.
public struct SnapshotEncoder: Sendable {
    /// The size at which a chunk is closed: 256 KiB.
    public static let defaultTargetChunkSize = 256 << 10

    /// Where the chunks end (the rule the clients' chunked output shares).
    private var chunker: SnapshotChunker
    /// The list, whose records' values are decoded chunk by chunk.
    private let list: ParsedList
    /// A linear list's records as the list holds them (runs shared with another version are not
    /// copied); `nil` for a sectioned list.
    private let linear: ListRecords?
    /// A sectioned list's sections (none for a linear list).
    private let sections: [ArraySection<SectionModel, ListRecord>]
    private let digest: ListDigest
    /// A linear list's records before this were encoded.
    private var encodedRecords = 0
    /// A linear list's records before this were let go of, held as mappings.
    private var releasedRecords = 0
    /// The size at which a chunk is closed.
    public var targetChunkSize: Int { self.chunker.targetChunkSize }

    /// An encoder for `list` at `cursor`.
    ///
    /// - Parameters:
    ///   - list: The list; a linear list is one section with model `null`.
    ///   - digest: The list's ``ListDigest``, sent with the last chunk.
    public init(
        watch: String, cursor: Cursor, list: ParsedList, digest: ListDigest,
        targetChunkSize: Int = SnapshotEncoder.defaultTargetChunkSize
    ) {
        self.chunker = SnapshotChunker(
            watch: watch, cursor: cursor, sectioned: list.isSectioned, schema: list.schema, targetChunkSize: targetChunkSize)
        self.list = list
        self.linear = list.linearRecords
        self.sections = list.isSectioned ? list.sections : []
        self.digest = digest
    }

    /// The hash of a linear list's section model, `null`.
    private static let nullModelHash = SectionModel(value: .null).contentHash

    /// Whether every chunk has been produced.
    public var isFinished: Bool { self.chunker.isFinished }

    /// The next chunk's line, `\n` included; `nil` once the last chunk has been produced.
    ///
    /// - Complexity: O(size of the chunk).
    public mutating func nextChunk() -> [UInt8]? {
        let list = self.list
        if let records = self.linear {
            // One section with model `null`, as ``ListFormats/ParsedList/sections`` gives it.
            var encoded = self.encodedRecords
            let chunk = self.chunker.nextChunk(
                sectionCount: 1,
                section: { _ in (.null, Self.nullModelHash, records.count) },
                recordHash: { _, index in records[index].contentHash },
                appendRecordValue: { _, index, json in
                    encoded = index + 1
                    list.appendValueJSON(of: records[index], to: &json)
                },
                digest: self.digest)
            self.encodedRecords = encoded
            // Records held as mappings (issue 19: a saved version's, mapped from the watch's
            // records file) are let go of a stretch at a time once encoded, as a pass over them
            // does, and their mappings whole at the end: the page cache's large folios map the
            // records between two runs (those an edit replaced) with those the runs hold, and a
            // release of the runs' ranges would leave them. A snapshot leaves no more of them
            // resident than a stretch.
            if self.chunker.isFinished {
                records.releaseAllMappedPages()
                self.releasedRecords = encoded
            } else if encoded - self.releasedRecords >= ListRecords.mappedStretchCount {
                records.releaseMappedPages(in: self.releasedRecords..<encoded)
                self.releasedRecords = encoded
            }
            return chunk
        }
        let sections = self.sections
        return self.chunker.nextChunk(
            sectionCount: sections.count,
            section: { index in
                let section = sections[index]
                return (section.model.value, section.model.contentHash, section.elements.count)
            },
            recordHash: { section, index in sections[section].elements[index].contentHash },
            // Straight from the file's bytes (a CSV row is not built into a value first): the
            // bytes `JSONText.append(list.value(of: record))` writes.
            appendRecordValue: { section, index, json in list.appendValueJSON(of: sections[section].elements[index], to: &json) },
            digest: self.digest)
    }
}
