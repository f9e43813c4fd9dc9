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

    private var header: SnapshotChunk.Header
    /// The list, whose records' values are decoded chunk by chunk.
    private let list: ParsedList
    private let sections: [ArraySection<SectionModel, ListRecord>]
    private let digest: ListDigest
    /// The size at which a chunk is closed.
    public let targetChunkSize: Int

    /// The next section to write, and the next record in it.
    private var sectionIndex = 0
    private var recordIndex = 0
    private var finished = false

    /// An encoder for `list` at `cursor`.
    ///
    /// - Parameters:
    ///   - list: The list; a linear list is one section with model `null`.
    ///   - digest: The list's ``ListDigest``, sent with the last chunk.
    public init(
        watch: String, cursor: Cursor, list: ParsedList, digest: ListDigest,
        targetChunkSize: Int = SnapshotEncoder.defaultTargetChunkSize
    ) {
        self.header = SnapshotChunk.Header(
            watch: watch, cursor: cursor, chunk: 0, fresh: true, sectioned: list.isSectioned, schema: list.schema)
        self.list = list
        self.sections = list.sections
        self.digest = digest
        self.targetChunkSize = max(1, targetChunkSize)
    }

    /// Whether every chunk has been produced.
    public var isFinished: Bool { self.finished }

    /// The next chunk's line, `\n` included; `nil` once the last chunk has been produced.
    ///
    /// - Complexity: O(size of the chunk).
    public mutating func nextChunk() -> [UInt8]? {
        guard !self.finished else { return nil }
        var writer = JSONLineWriter.snapshotHeader(self.header, capacity: min(self.targetChunkSize + 4096, 1 << 20))
        var full = false
        writer.array("sections") { array in
            while !full, self.sectionIndex < self.sections.count {
                let section = self.sections[self.sectionIndex]
                array.objectElement { object in
                    object.sectionHeader(index: self.sectionIndex, model: section.model.value, modelHash: section.model.contentHash)
                    object.array("records") { records in
                        while self.recordIndex < section.elements.count, !full {
                            let record = section.elements[self.recordIndex]
                            records.record(value: self.list.value(of: record), hash: record.contentHash)
                            self.recordIndex += 1
                            full = records.count >= self.targetChunkSize
                        }
                    }
                }
                if self.recordIndex == section.elements.count {
                    self.sectionIndex += 1
                    self.recordIndex = 0
                }
            }
        }
        self.finished = self.sectionIndex == self.sections.count
        self.header.chunk += 1
        return writer.finishSnapshot(last: self.finished, digest: self.finished ? self.digest : nil)
    }
}
