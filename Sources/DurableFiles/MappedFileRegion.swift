#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stretch of a regular file mapped read-only (`PROT_READ`), unmapped when the last value
/// that holds it goes.
///
/// The pages are the page cache's: mapping costs neither fresh memory nor a copy, and a page
/// counts in the process's resident set only once it is touched, until ``releasePages()``
/// (or the unmapping) lets it go again — the kernel reads it back from the file when it is
/// touched again. Issue 19: the bytes of a version the daemon's state files already hold can
/// be served from them rather than from anonymous memory (``FileBytes/Storage/mapped(_:)``).
///
/// **The one condition:** nothing may write or truncate the mapped stretch of the file while
/// it is mapped. A write would change the bytes under their readers; a truncation makes a read
/// past the file's new end fail with `SIGBUS`. Map only files their writer replaces (a new file
/// renamed over the old one: the old inode and its pages stay for the mapping) or never
/// rewrites while the region is held.
public final class MappedFileRegion: @unchecked Sendable {
    /// The mapped bytes; never written (`PROT_READ`).
    public let buffer: UnsafeBufferPointer<UInt8>
    /// The whole mapping: from the page that holds the region's first byte.
    private let mapping: UnsafeMutableRawBufferPointer

    /// How many bytes the region holds.
    public var count: Int { buffer.count }

    /// Maps `count` (> 0) bytes of the open file `descriptor` from byte `offset`, read in at
    /// once when `populate` (`MAP_POPULATE`: a reader that reads every byte right away).
    /// Throws when the file cannot be mapped (not a regular file, no address space).
    public init(descriptor: Int32, offset: Int = 0, count: Int, populate: Bool = false) throws(SystemCallError) {
        precondition(offset >= 0 && count > 0, "an empty or negative region")
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = offset - offset % pageSize
        let length = count + (offset - start)
        let flags = MAP_SHARED | (populate ? MAP_POPULATE : 0)
        guard let address = mmap(nil, length, PROT_READ, flags, descriptor, off_t(start)), address != MAP_FAILED else {
            throw .lastError(of: "mmap")
        }
        self.mapping = UnsafeMutableRawBufferPointer(start: address, count: length)
        self.buffer = UnsafeBufferPointer(start: (address + (offset - start)).assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// Maps `count` (> 0) bytes of the file at `path` from byte `offset`; the file need not stay
    /// open. Throws when it cannot be opened or mapped.
    public convenience init(path: String, offset: Int = 0, count: Int) throws(SystemCallError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .lastError(of: "open", path: path) }
        defer { close(descriptor) }
        do throws(SystemCallError) {
            try self.init(descriptor: descriptor, offset: offset, count: count)
        } catch {
            throw error.on(path)
        }
    }

    /// Lets the pages touched so far go from the resident set (`MADV_DONTNEED`): the bytes stay
    /// the same, read back from the file (the page cache) when touched again. For a reader that
    /// has just read a large stretch once (a snapshot sent, ends compared).
    public func releasePages() {
        #if os(Linux)
        _ = madvise(self.mapping.baseAddress, self.mapping.count, MADV_DONTNEED)
        #endif
    }

    /// Lets the pages that hold bytes `range` of the region go from the resident set (as
    /// ``releasePages()``, for the pages around them too): for a reader that goes through a large
    /// region once, a stretch at a time, so that no more than a stretch stays resident.
    public func releasePages(in range: Range<Int>) {
        #if os(Linux)
        guard !range.isEmpty, let base = self.mapping.baseAddress, let start = self.buffer.baseAddress else { return }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = UnsafeRawPointer(start) + range.lowerBound - UnsafeRawPointer(base)
        let lower = first - first % pageSize
        let upper = min(self.mapping.count, (first + range.count + pageSize - 1) / pageSize * pageSize)
        guard upper > lower else { return }
        _ = madvise(base + lower, upper - lower, MADV_DONTNEED)
        #endif
    }

    /// Lets the pages that hold `stretch` go from the resident set when `stretch` lies in this
    /// region (as ``releasePages(in:)``); returns whether it does. For a reader given the region
    /// as a plain buffer (a parse in place), which releases by address what it went through.
    @discardableResult
    public func releasePages(holding stretch: UnsafeRawBufferPointer) -> Bool {
        guard let start = stretch.baseAddress, let base = self.buffer.baseAddress, !stretch.isEmpty else { return false }
        let lower = start - UnsafeRawPointer(base)
        guard lower >= 0, lower + stretch.count <= self.buffer.count else { return false }
        self.releasePages(in: lower..<(lower + stretch.count))
        return true
    }

    deinit {
        munmap(self.mapping.baseAddress, self.mapping.count)
    }
}
