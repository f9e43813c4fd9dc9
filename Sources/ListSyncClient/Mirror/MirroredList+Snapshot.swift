import ListSyncProtocol

extension MirroredList {
    /// Applies one chunk of a snapshot; the mirror takes the snapshot's list when its last chunk
    /// arrives and the digest matches.
    ///
    /// Chunk 0 starts a new snapshot (dropping any incomplete one); every snapshot is *fresh*: it
    /// replaces whatever the mirror held, a list or a cursor. Until the last chunk, the mirror
    /// keeps its current list, so readers never see half a snapshot.
    ///
    /// With `keepingList` false (decided by chunk 0), the mirror keeps only the records' hashes,
    /// enough to check the digest, and once the snapshot verifies it holds the snapshot's cursor
    /// alone (``hasList`` is false): for a consumer that keeps the records itself as they arrive.
    ///
    /// - Returns: Whether the snapshot is complete and now the mirror's list (or cursor).
    /// - Throws: ``MirrorError`` for a chunk out of order, a malformed snapshot or a digest that
    ///   does not match; the incomplete snapshot is dropped and the list stays as it was.
    /// - Complexity: O(records in the chunk); the last chunk adds O(*n*) for the digest.
    @discardableResult
    public mutating func apply(_ chunk: SnapshotChunk, keepingList: Bool = true) throws(MirrorError) -> Bool {
        try self.checkWatch(chunk.watch)
        if chunk.chunk == 0 {
            // Dropped first: the old assembly's records are freed before the new one grows.
            self.pendingSnapshot = nil
            self.pendingSnapshot = SnapshotAssembly(first: chunk, keepsList: keepingList)
        }
        guard var assembly = self.pendingSnapshot else {
            throw .snapshotOutOfOrder(cursor: chunk.cursor, chunk: chunk.chunk, reason: "no snapshot was started by chunk 0")
        }
        // Taken out of the mirror so the chunk appends in place; dropped if anything fails.
        self.pendingSnapshot = nil
        try assembly.append(chunk)
        guard chunk.last else {
            self.pendingSnapshot = assembly
            return false
        }
        let content = try assembly.content(digest: chunk.digest, version: self.digestVersion)
        self.basis = assembly.keepsList ? .list(content) : .position(content.cursor)
        self._checkInvariants()
        return true
    }
}
