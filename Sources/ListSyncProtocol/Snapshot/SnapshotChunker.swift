import ListFormats

/// Cuts a snapshot into chunked `snapshot` lines (docs/PROTOCOL.md, *Snapshots*): the one rule
/// for where a chunk ends, shared by the daemon's ``SnapshotEncoder`` (records of a parsed list)
/// and clients that print a list they hold (`listsync subscribe --format ndjson`).
///
/// A chunk is closed after the record that brings it to ``targetChunkSize`` bytes, so a line stays
/// around that size unless one record is larger. Every section appears, empty ones too; a section
/// continues in the next chunk with the same index. The last chunk carries the digest.
public struct SnapshotChunker: Sendable {
    private var header: SnapshotChunk.Header
    /// The size at which a chunk is closed.
    public let targetChunkSize: Int

    /// The next section to write, and the next record in it.
    private var sectionIndex = 0
    private var recordIndex = 0
    private var finished = false

    /// A chunker for the (fresh) snapshot of watch `watch` at `cursor`, chunks numbered from 0.
    public init(
        watch: String, cursor: Cursor, sectioned: Bool, schema: ListSchema,
        targetChunkSize: Int = SnapshotEncoder.defaultTargetChunkSize
    ) {
        self.header = SnapshotChunk.Header(watch: watch, cursor: cursor, chunk: 0, fresh: true, sectioned: sectioned, schema: schema)
        self.targetChunkSize = max(1, targetChunkSize)
    }

    /// Whether every chunk has been produced.
    public var isFinished: Bool { self.finished }

    /// The next chunk's line, `\n` included; `nil` once the last chunk has been produced.
    ///
    /// - Parameters:
    ///   - sectionCount: The list's sections (a linear list: one, model `null`).
    ///   - section: Section `i`'s model, the model's content hash and its record count.
    ///   - record: Record `j` of section `i`: its value and content hash.
    ///   - digest: The list's digest, sent with the last chunk.
    /// - Complexity: O(size of the chunk).
    public mutating func nextChunk(
        sectionCount: Int, section: (Int) -> (model: ListValue, hash: ContentHash, recordCount: Int),
        record: (_ section: Int, _ record: Int) -> (value: ListValue, hash: ContentHash), digest: ListDigest
    ) -> [UInt8]? {
        self.nextChunk(sectionCount: sectionCount, section: section, digest: digest) { sectionIndex, recordIndex, records in
            let next = record(sectionIndex, recordIndex)
            records.record(value: next.value, hash: next.hash)
        }
    }

    /// The next chunk's line, as ``nextChunk(sectionCount:section:record:digest:)`` writes it, each
    /// record's value written as JSON by `appendRecordValue` rather than from a ``ListValue``:
    /// the daemon writes a CSV record straight from its row (``ParsedList/appendValueJSON(of:to:)``).
    ///
    /// - Parameters:
    ///   - recordHash: Record `j` of section `i`'s content hash.
    ///   - appendRecordValue: Appends record `j` of section `i`'s value as compact JSON
    ///     (``JSONText/append(_:to:)``'s bytes).
    /// - Complexity: O(size of the chunk).
    public mutating func nextChunk(
        sectionCount: Int, section: (Int) -> (model: ListValue, hash: ContentHash, recordCount: Int),
        recordHash: (_ section: Int, _ record: Int) -> ContentHash,
        appendRecordValue: (_ section: Int, _ record: Int, _ json: inout [UInt8]) -> Void, digest: ListDigest
    ) -> [UInt8]? {
        self.nextChunk(sectionCount: sectionCount, section: section, digest: digest) { sectionIndex, recordIndex, records in
            records.record(hash: recordHash(sectionIndex, recordIndex)) { json in appendRecordValue(sectionIndex, recordIndex, &json) }
        }
    }

    /// The one loop both ``nextChunk(sectionCount:section:record:digest:)`` and
    /// ``nextChunk(sectionCount:section:recordHash:appendRecordValue:digest:)`` cut chunks with;
    /// `writeRecord` writes record `j` of section `i` as an element of the `records` array.
    private mutating func nextChunk(
        sectionCount: Int, section: (Int) -> (model: ListValue, hash: ContentHash, recordCount: Int), digest: ListDigest,
        writeRecord: (_ section: Int, _ record: Int, _ records: inout JSONLineWriter) -> Void
    ) -> [UInt8]? {
        guard !self.finished else { return nil }
        var writer = JSONLineWriter.snapshotHeader(self.header, capacity: min(self.targetChunkSize + 4096, 1 << 20))
        var full = false
        writer.array("sections") { array in
            while !full, self.sectionIndex < sectionCount {
                let current = section(self.sectionIndex)
                array.objectElement { object in
                    object.sectionHeader(index: self.sectionIndex, model: current.model, modelHash: current.hash)
                    object.array("records") { records in
                        while self.recordIndex < current.recordCount, !full {
                            writeRecord(self.sectionIndex, self.recordIndex, &records)
                            self.recordIndex += 1
                            full = records.count >= self.targetChunkSize
                        }
                    }
                }
                if self.recordIndex == current.recordCount {
                    self.sectionIndex += 1
                    self.recordIndex = 0
                }
            }
        }
        self.finished = self.sectionIndex == sectionCount
        self.header.chunk += 1
        return writer.finishSnapshot(last: self.finished, digest: self.finished ? digest : nil)
    }
}
