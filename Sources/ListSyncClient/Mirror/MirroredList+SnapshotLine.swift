import ListSyncProtocol

extension MirroredList {
    /// The mirror's list as one `snapshot` message (chunk 0 and last, fresh, with the digest),
    /// `\n` included; `nil` when it holds no list. What `listsync subscribe --format ndjson`
    /// prints, a mirror's state file records, and the NATS sink publishes for a snapshot.
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
}
