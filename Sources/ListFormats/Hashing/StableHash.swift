import CListFormatsScan
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
    ///
    /// An input longer than ``inlinedLengthLimit`` (a chunk of a file, a large record) is hashed
    /// by `listsync_xxh3_128_dispatched`, with AVX2 where the CPU has it (about 3× the speed of
    /// the inlined SSE2 code: issue 19, the chunks of an 88 MB file hashed at every version);
    /// a shorter one (most records) inline, where a call would cost more than the vectors save.
    @inline(__always)
    static func hash128(_ bytes: UnsafeRawPointer, count: Int) -> ContentHash {
        if count > inlinedLengthLimit {
            let hash = listsync_xxh3_128_dispatched(bytes, Int64(count))
            return ContentHash(low: hash.low, high: hash.high)
        }
        let hash = listsync_xxh3_128(bytes, count)
        return ContentHash(low: hash.low64, high: hash.high64)
    }

    /// The longest input XXH3 hashes without its vector loop (`XXH3_MIDSIZE_MAX`).
    static let inlinedLengthLimit = 240

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
