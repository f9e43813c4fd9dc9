import CXXHash

extension ChecksummedRecord {
    /// The checksum of a payload held in pieces: XXH3-64 fed piece by piece, the same value as
    /// ``checksum(of:)`` of the bytes in one array — so a checkpoint's list or a journal record
    /// that shares its storage with another version is framed without being copied first.
    /// One piece is hashed in place as ``checksum(of:)`` hashes it; a mapped one a stretch at a
    /// time (``FileBytes/forEachStretch(_:)``).
    public static func checksum(of bytes: FileBytes) -> UInt64 {
        if bytes.pieces.count <= 1, !bytes.holdsMappings {
            return bytes.pieces.first?.withUnsafeBufferPointer { Self.oneShot(UnsafeRawBufferPointer($0)) } ?? Self.oneShot(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        guard let state = listsync_xxh3_64_create() else {
            // Out of memory for the hash's state (a few hundred bytes): hash a copy instead.
            return Self.checksum(of: bytes.array[...])
        }
        defer { listsync_xxh3_64_free(state) }
        // Mapped pieces a stretch at a time, each let go of once hashed.
        bytes.forEachStretch { _, stretch in
            listsync_xxh3_64_update(state, stretch.baseAddress, stretch.count)
        }
        return listsync_xxh3_64_digest(state)
    }

    /// The record of a payload held in pieces (``frame(_:)``): its frame header, then the
    /// payload's own pieces, shared, not copied. O(pieces) beside the checksum.
    public static func frame(_ payload: FileBytes) -> FileBytes {
        FileBytes(self.header(count: payload.count, checksum: self.checksum(of: payload))) + payload
    }

    private static func oneShot(_ buffer: UnsafeRawBufferPointer) -> UInt64 {
        // XXH3 never reads an empty input, but it wants a pointer.
        listsync_xxh3_64(buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), buffer.count)
    }
}
