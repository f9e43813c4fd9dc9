#if canImport(Glibc)
import Glibc
#endif

/// Asks Linux to back a large buffer with 2 MiB pages (transparent huge
/// pages, when they are enabled for `madvise`).
///
/// Filling a fresh 100 MB buffer — a file read into memory, a list's records
/// — takes 25 000 page faults with 4 KiB pages, 50 with huge pages; the
/// kernel still zeroes the same bytes, but the faults cost as much again.
/// Only the 2 MiB-aligned inside of the buffer is advised; elsewhere, and
/// on other systems, this does nothing. Shared by the readers of ListFormats and the
/// daemon's file reads (`FileWatching`'s `FileSnapshot`).
public enum HugePages {
    private static let size = 1 << 21

    /// Advises the `byteCount` bytes at `start` (not yet touched).
    public static func advise(_ start: UnsafeRawPointer, byteCount: Int) {
        #if os(Linux)
        guard byteCount >= 2 * size else { return }
        let first = (Int(bitPattern: start) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: start) + byteCount) & ~(size - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, end - first, MADV_HUGEPAGE)
        #endif
    }
}
