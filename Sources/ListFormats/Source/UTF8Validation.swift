import CListFormatsScan

/// Checks that a file is well-formed UTF-8 (no overlong forms, no surrogates,
/// nothing above U+10FFFF) while a reader goes through it.
///
/// A reader has the bytes it went through checked (``validate(upTo:)``),
/// right after it read them, while they are in the cache — one trip through
/// memory for both instead of a separate pass — vectorized (AVX2 where the
/// CPU has it); or it says they were checked already (``skip(to:)``): the
/// CSV scanner and the JSON fast path check UTF-8 as they go. The first
/// ill-formed sequence is located by a scalar scan, only once a check fails.
struct UTF8Validation {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Everything before this offset is well-formed; it is never inside a
    /// sequence.
    private(set) var validatedEnd: Int

    /// A check of `bytes` from `start` (a sequence boundary: the bytes
    /// before it are someone else's to check).
    init(bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) {
        self.bytes = bytes
        validatedEnd = start
    }

    /// Checks the bytes before `offset` (and the rest of a sequence cut
    /// there).
    @inline(__always)
    mutating func validate(upTo offset: Int) throws(ListFormatError) {
        if offset > validatedEnd { try validateBytes(upTo: offset) }
    }

    /// Checks the bytes not checked yet.
    mutating func validateAll() throws(ListFormatError) {
        try validate(upTo: bytes.count)
    }

    /// Takes note that the bytes from ``validatedEnd`` to `offset` (a
    /// sequence boundary) were checked by someone else.
    @inline(__always)
    mutating func skip(to offset: Int) {
        validatedEnd = max(validatedEnd, offset)
    }

    private mutating func validateBytes(upTo offset: Int) throws(ListFormatError) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        var end = min(offset, count)
        // End after the sequence `offset` would cut (at most three
        // continuation bytes; more is ill-formed and fails either check).
        var extra = 0
        while end < count, extra < 3, base[end] & 0xC0 == 0x80 {
            end += 1
            extra += 1
        }
        if !listsync_utf8_is_valid(base + validatedEnd, Int64(end - validatedEnd)) {
            // The scalar scan is the reference: it says where, or that the bytes are fine after all.
            if Self.firstInvalidOffset(in: UnsafeBufferPointer(rebasing: bytes[validatedEnd...])) != nil {
                throw Self.error(in: bytes)
            }
        }
        validatedEnd = end
    }

    /// The offset of the first byte of the first ill-formed sequence, or `nil`
    /// when all of `bytes` is well-formed UTF-8. O(*n*), scalar.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let offset = Int(listsync_utf8_first_invalid(base, Int64(bytes.count)))
        return offset < bytes.count ? offset : nil
    }

    /// The error for the first ill-formed sequence of `bytes`, which has one.
    static func error(in bytes: UnsafeBufferPointer<UInt8>) -> ListFormatError {
        .invalidUTF8(at: SourceLocator.position(ofByteOffset: firstInvalidOffset(in: bytes) ?? bytes.count, in: bytes))
    }

    /// Whether `bytes` starts with the UTF-8 byte-order mark EF BB BF.
    static func hasByteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }
}
