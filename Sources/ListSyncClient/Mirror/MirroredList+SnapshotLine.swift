import ListSyncProtocol

extension MirroredList {
    /// The mirror's list as one `snapshot` message (chunk 0 and last, fresh, with the digest),
    /// `\n` included; `nil` when it holds no list. What `listsync exec` feeds its command,
    /// a mirror's state file records, and the NATS sink publishes for a snapshot.
    ///
    /// - Complexity: O(*n*).
    public var snapshotLine: [UInt8]? {
        guard let cursor = self.cursor, let digest = self.digest else { return nil }
        let sections = self.sections.enumerated().map { index, section in
            SnapshotSection(index: index, section: section.model, records: section.records)
        }
        let chunk = SnapshotChunk(
            watch: self.watch, cursor: cursor, chunk: 0, last: true, fresh: true, sectioned: self.isSectioned,
            schema: self.schema, sections: sections, digest: digest)
        return ServerMessage.snapshot(chunk).encoded()
    }

    /// The mirror's list as the chunked `snapshot` messages the daemon sends (chunk 0 fresh, the
    /// last with the digest; a chunk closed after the record that brings it to
    /// `targetChunkSize` bytes, ``SnapshotChunker``), each line (`\n` included) handed to `body`
    /// as it is made; nothing when the mirror holds no list. What `listsync subscribe --format
    /// ndjson` prints for a snapshot: no line larger than a chunk but for a single record larger
    /// than one, and one chunk in memory at a time beside the list.
    ///
    /// - Complexity: O(*n*).
    public func writeSnapshotLines(
        targetChunkSize: Int = SnapshotEncoder.defaultTargetChunkSize, _ body: ([UInt8]) throws -> Void
    ) rethrows {
        guard let cursor = self.cursor, let digest = self.digest else { return }
        let sections = self.sections
        var chunker = SnapshotChunker(
            watch: self.watch, cursor: cursor, sectioned: self.isSectioned, schema: self.schema, targetChunkSize: targetChunkSize)
        while let line = chunker.nextChunk(
            sectionCount: sections.count,
            section: { index in (sections[index].model.model, sections[index].model.hash, sections[index].records.count) },
            record: { section, index in (sections[section].records[index].value, sections[section].records[index].hash) },
            digest: digest)
        {
            try body(line)
        }
    }
}
