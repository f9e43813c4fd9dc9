import CXXHash

/// Stable hashes of byte strings: XXH3 with the default secret and seed 0.
///
/// Unlike Swift's `Hasher`, which is seeded per process, these values are the
/// same in every process and on every machine, so they can be persisted and
/// compared across runs.
enum StableHash {
    /// XXH3-64 of `count` bytes at `bytes`. O(*n*).
    @inline(__always)
    static func hash64(_ bytes: UnsafeRawPointer, count: Int) -> UInt64 {
        listsync_xxh3_64(bytes, count)
    }

    /// XXH3-128 of `count` bytes at `bytes`. O(*n*).
    @inline(__always)
    static func hash128(_ bytes: UnsafeRawPointer, count: Int) -> ContentHash {
        let hash = listsync_xxh3_128(bytes, count)
        return ContentHash(low: hash.low64, high: hash.high64)
    }

    /// XXH3-64 of a buffer. O(*n*).
    @inline(__always)
    static func hash64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = bytes.baseAddress else { return hash64(emptyInput(), count: 0) }
        return hash64(base, count: bytes.count)
    }

    /// XXH3-128 of a buffer. O(*n*).
    @inline(__always)
    static func hash128(_ bytes: UnsafeRawBufferPointer) -> ContentHash {
        guard let base = bytes.baseAddress else { return hash128(emptyInput(), count: 0) }
        return hash128(base, count: bytes.count)
    }

    /// XXH3 never reads from an empty input, but it wants a non-null pointer.
    private static func emptyInput() -> UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: 0x1).unsafelyUnwrapped
    }
}
