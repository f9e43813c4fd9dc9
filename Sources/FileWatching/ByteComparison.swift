import Glibc

/// Where two equally long stretches of memory first or last differ: one `memcmp` over both
/// (equal stretches, the common case, cost one call), then `memcmp` over blocks, then byte by
/// byte within the first block that differs.
enum ByteComparison {
    /// Small enough that the byte loop over a differing block costs little.
    static let blockSize = 4096

    /// The offset of the first byte where `a` and `b` (of equal counts) differ.
    static func firstDifference(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int? {
        precondition(a.count == b.count, "stretches of different lengths")
        guard let left = a.baseAddress, let right = b.baseAddress, memcmp(left, right, a.count) != 0 else { return nil }
        var start = 0
        while start < a.count {
            let end = min(start + blockSize, a.count)
            if memcmp(left + start, right + start, end - start) != 0 {
                return (start..<end).first { a[$0] != b[$0] }
            }
            start = end
        }
        return nil
    }

    /// The offset of the last byte where `a` and `b` (of equal counts) differ.
    static func lastDifference(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int? {
        precondition(a.count == b.count, "stretches of different lengths")
        guard let left = a.baseAddress, let right = b.baseAddress, memcmp(left, right, a.count) != 0 else { return nil }
        var end = a.count
        while end > 0 {
            let start = max(end - blockSize, 0)
            if memcmp(left + start, right + start, end - start) != 0 {
                return (start..<end).last { a[$0] != b[$0] }
            }
            end = start
        }
        return nil
    }
}
