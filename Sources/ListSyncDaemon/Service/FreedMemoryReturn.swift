/// The daemon's allocator policy: large buffers go back to the system when they are freed.
///
/// Each version of a large watched file comes with buffers of megabytes that live only while it
/// is read, diffed and saved (the file's new bytes, the new record array, the duplicate count,
/// the diff's position arrays). glibc's malloc serves blocks of at least `M_MMAP_THRESHOLD`
/// (128 KiB) with their own mappings, unmapped when freed — but the first time such a block is
/// freed it raises the threshold to that block's size (up to 32 MiB), and the trim threshold to
/// twice that; from then on those buffers come from the heap, and freeing them leaves tens of
/// megabytes resident: measured in the latency benchmark (1M rows, 44 MB file), 178–243 MiB
/// resident after loading and a peak of 294–359 MiB over one-row edits, against 112 MiB and
/// 211 MiB with fixed thresholds (docs/BENCHMARKS.md). Setting both thresholds fixes them (it
/// turns the raising off), so that what a version leaves behind is what it keeps.
public enum FreedMemoryReturn {
    /// Blocks from this size on get their own mapping and are unmapped when freed: 256 KiB, past
    /// which a fresh mapping's cost (a system call, pages zeroed on first touch) is small beside
    /// writing the block once.
    public static let mappedBlockSize = 256 << 10

    /// Free memory at the top of the heap beyond this is given back at once.
    public static let heapTrimSize = 1 << 20

    /// Sets the process's malloc thresholds (once, at start: every later allocation follows it),
    /// unless `GLIBC_TUNABLES` (`environment`) sets either itself: an administrator's choice stands.
    /// Returns whether the allocator took them (always on glibc; elsewhere there is nothing to set).
    @discardableResult
    public static func apply(environment: ProcessEnvironment = .current()) -> Bool {
        let tunables = environment["GLIBC_TUNABLES"] ?? ""
        guard !tunables.contains("glibc.malloc.mmap_threshold"), !tunables.contains("glibc.malloc.trim_threshold") else {
            return false
        }
        #if canImport(Glibc)
        return setMallocParameter(Self.mmapThreshold, Int32(Self.mappedBlockSize)) == 1
            && setMallocParameter(Self.trimThreshold, Int32(Self.heapTrimSize)) == 1
        #else
        return false
        #endif
    }

    /// `M_MMAP_THRESHOLD` and `M_TRIM_THRESHOLD` of `<malloc.h>`, which the Glibc module does not
    /// import (nor `mallopt`).
    private static let mmapThreshold: Int32 = -3
    private static let trimThreshold: Int32 = -1
}

/// glibc's `int mallopt(int param, int value)`: 1 on success.
@_silgen_name("mallopt")
private func setMallocParameter(_ parameter: Int32, _ value: Int32) -> Int32
