#if canImport(Glibc)
import Glibc
#endif

/// glibc malloc's two thresholds for a process whose memory comes and goes in large buffers:
/// from which size a block gets a mapping of its own (`M_MMAP_THRESHOLD`, unmapped when freed),
/// and how much free memory the heap's top keeps (`M_TRIM_THRESHOLD`).
///
/// glibc raises both by itself the first time it frees a mapped block (to that block's size, up
/// to 32 MiB): from then on such blocks come from the heap. Setting them turns that off. Which
/// values are right depends on what the process does with its memory, so there are two:
/// ``returnFreedMemory`` for the daemon and ``keepFreedMemory`` for a client that streams a
/// snapshot. docs/BENCHMARKS.md has the figures behind both.
public struct MallocThresholds: Sendable, Hashable {
    /// Blocks from this size on get their own mapping.
    public var mappedBlockSize: Int
    /// Free memory at the top of the heap beyond this goes back to the system at once.
    public var heapTrimSize: Int

    public init(mappedBlockSize: Int, heapTrimSize: Int) {
        self.mappedBlockSize = mappedBlockSize
        self.heapTrimSize = heapTrimSize
    }

    /// The daemon's: a version's large buffers (the file's bytes, the record array, the diff's
    /// arrays) go back to the system when freed, so that what a version leaves behind is what it
    /// keeps. With glibc's raising thresholds they stayed resident: a 1M-row watch held 178–243
    /// MiB after loading and peaked at 294–359 MiB over one-row edits, against 112 and 211 MiB.
    /// 256 KiB: past it a fresh mapping's cost (a system call, pages zeroed on first touch) is
    /// small beside writing the block once.
    public static let returnFreedMemory = MallocThresholds(mappedBlockSize: 256 << 10, heapTrimSize: 1 << 20)

    /// A streaming client's (`listsync snapshot`, `mirror`): each chunk of a snapshot (a line of
    /// about 256 KiB) is parsed into buffers of a few hundred KiB freed once its records are
    /// written; served by `mmap` or trimmed off the heap, they were faulted in again for the
    /// next chunk — 95,000–250,000 page faults for a 1M-row snapshot, a fifth of its time. Kept
    /// on the heap, about 7,000, with the same peak (what is kept was in use already).
    public static let keepFreedMemory = MallocThresholds(mappedBlockSize: 4 << 20, heapTrimSize: 64 << 20)

    /// The process's `GLIBC_TUNABLES`.
    public static var processTunables: String? {
        getenv("GLIBC_TUNABLES").map { String(cString: $0) }
    }

    /// Sets the process's thresholds — once, at start: every later allocation follows them —
    /// unless `tunables` (the `GLIBC_TUNABLES` variable, the process's own by default) sets
    /// either itself: an administrator's choice stands. Returns whether the allocator took them
    /// (always on glibc; elsewhere there is nothing to set).
    @discardableResult
    public func apply(tunables: String? = Self.processTunables) -> Bool {
        let tunables = tunables ?? ""
        guard !tunables.contains("glibc.malloc.mmap_threshold"), !tunables.contains("glibc.malloc.trim_threshold") else {
            return false
        }
        return MallocOption.mmapThreshold.set(self.mappedBlockSize) && MallocOption.trimThreshold.set(self.heapTrimSize)
    }
}
