#if canImport(Glibc)
import Glibc
#endif

/// Keeps the memory a streamed snapshot frees for the next chunk instead of handing it back to
/// the kernel.
///
/// Each chunk of a snapshot (a line of about 256 KiB) is parsed into buffers of a few hundred
/// KiB that are freed once its records are written. glibc's defaults serve such buffers with
/// `mmap` (or trim them off the heap's top) and fault them in again for the next chunk: a 1M-row
/// snapshot took 95,000–250,000 page faults, a fifth of `listsync snapshot`'s time. With
/// buffers up to 4 MiB served from the heap and up to 64 MiB of free memory kept at its top, it
/// takes about 7,000; the peak resident memory is the same (what is kept was in use already).
enum HeapRetention {
    /// Buffers below this size come from the heap, not from `mmap`.
    static let mmapThreshold: Int32 = 4 << 20
    /// Free memory at the heap's top below this size is kept.
    static let trimThreshold: Int32 = 64 << 20

    /// Sets glibc's thresholds for this process (`mallopt`); nothing elsewhere. `mallopt` is
    /// looked up at run time (`<malloc.h>` is not in the Glibc module); its option numbers,
    /// `M_TRIM_THRESHOLD` (-1) and `M_MMAP_THRESHOLD` (-3), are glibc's ABI.
    static func keepFreedMemory() {
        #if canImport(Glibc)
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        guard let process = dlopen(nil, RTLD_NOW) else { return }
        defer { dlclose(process) }
        guard let symbol = dlsym(process, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallocOption.self)
        _ = mallopt(-3, Self.mmapThreshold)
        _ = mallopt(-1, Self.trimThreshold)
        #endif
    }
}
