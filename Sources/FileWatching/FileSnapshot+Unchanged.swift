import DurableFiles
import Glibc

extension FileSnapshot {
    /// The size of the pieces ``unchanged(atPath:identity:bytes:)`` reads and compares.
    static let comparedPieceSize = 128 << 10

    /// `bytes` (in whatever pieces they are held) as the content of the file at `path`, when the
    /// file still has `identity` (its `stat` through the descriptor before and after, and through
    /// the path after) and holds exactly `bytes` — compared, in place against each of their
    /// pieces, through a buffer of ``comparedPieceSize`` bytes, so no buffer of the file's size
    /// is made. `nil` when anything differs, or cannot be read:
    /// then read the file whole (``read(atPath:maximumAttempts:reusing:following:)``).
    ///
    /// For a file announced again that nobody changed since the last read (the watcher's
    /// announcement of a file it starts watching, while the tracker's first read runs): a whole
    /// read there made a second copy of the file — 1× its size of the daemon's peak at start
    /// (issue 19 item 3) — only to find it equal. What it returns is what a whole read returns,
    /// byte for byte; only the storage is `bytes`'s (its pieces, kept as they are). Blocks: call
    /// it where blocking is fine.
    ///
    /// - Complexity: O(size): one read of the file, compared at memory speed.
    public static func unchanged(atPath path: String, identity: FileIdentity, bytes: FileBytes) -> FileSnapshot? {
        guard Int64(bytes.count) == identity.size else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var before = stat()
        guard fstat(descriptor, &before) == 0, before.st_mode & S_IFMT == S_IFREG, FileIdentity(before) == identity else {
            return nil
        }
        let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: comparedPieceSize, alignment: 64)
        defer { piece.deallocate() }
        guard let pieceBase = piece.baseAddress else { return nil }
        var offset = 0
        var equal = false
        // Pages of `bytes` held as mappings (issue 19) are let go of a few MiB at a time once compared.
        var released = 0
        defer { bytes.releaseMappedPages(in: released..<offset) }
        while true {
            if offset - released >= FileBytes.mappedStretchLength {
                bytes.releaseMappedPages(in: released..<offset)
                released = offset
            }
            let count = Glibc.read(descriptor, pieceBase, comparedPieceSize)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 {
                equal = offset == bytes.count
                break
            }
            guard offset + count <= bytes.count, Self.equal(UnsafeRawBufferPointer(start: pieceBase, count: count), bytes, at: offset) else { break }
            offset += count
        }
        var after = stat()
        var atPath = stat()
        guard equal, fstat(descriptor, &after) == 0, FileIdentity(after) == identity,
            stat(path, &atPath) == 0, FileIdentity(atPath) == identity
        else { return nil }
        return .present(bytes: bytes, identity: identity)
    }

    /// Whether `read` equals `bytes` from byte `offset` on: compared against each piece it
    /// overlaps, in place.
    private static func equal(_ read: UnsafeRawBufferPointer, _ bytes: FileBytes, at offset: Int) -> Bool {
        var compared = 0
        while compared < read.count {
            let index = bytes.pieceIndex(containing: offset + compared)
            let within = offset + compared - bytes.start(ofPiece: index)
            let length = min(read.count - compared, bytes.pieces[index].range.count - within)
            let same = bytes.pieces[index].withUnsafeBufferPointer { expected in
                memcmp(read.baseAddress! + compared, expected.baseAddress! + within, length) == 0
            }
            guard same else { return false }
            compared += length
        }
        return true
    }
}
