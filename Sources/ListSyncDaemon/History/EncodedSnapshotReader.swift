import NIOCore

/// One subscription's place in an ``EncodedSnapshot`` it sends: the snapshot keeps each chunk
/// until every reader has taken it, and a reader no longer held (the subscription moved on to
/// streaming, or ended with its connection) needs none.
final class EncodedSnapshotReader: Sendable {
    /// The snapshot read.
    let snapshot: EncodedSnapshot
    private let id: Int

    /// Made by ``EncodedSnapshot/attachReader()``.
    init(snapshot: EncodedSnapshot, id: Int) {
        self.snapshot = snapshot
        self.id = id
    }

    deinit {
        self.snapshot.detachReader(self.id)
    }

    /// Chunk `index`'s line (`\n` included); `nil` past the last chunk. Take them in order: the
    /// chunks before `index` may be released once this is called.
    func chunk(_ index: Int) -> ByteBuffer? {
        self.snapshot.chunk(index, reader: self.id)
    }
}
