#if canImport(Glibc)
import Glibc
#endif

/// One of glibc malloc's settings, set through `mallopt` — the one place that calls it, for
/// ``MallocThresholds`` and ``MallocArenas``.
enum MallocOption: Int32 {
    // `<malloc.h>`'s `M_TRIM_THRESHOLD`, `M_MMAP_THRESHOLD`, `M_ARENA_MAX`: glibc's ABI.
    case trimThreshold = -1
    case mmapThreshold = -3
    case arenaMax = -8

    /// Sets the option to `value`; returns whether the allocator took it (never off glibc).
    func set(_ value: Int) -> Bool {
        #if canImport(Glibc)
        // `mallopt` is looked up: `<malloc.h>` is not in the Glibc module.
        typealias SetMallocOption = @convention(c) (Int32, Int32) -> Int32
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        guard let symbol = dlsym(process, "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: SetMallocOption.self)
        return mallopt(self.rawValue, Int32(clamping: value)) == 1
        #else
        return false
        #endif
    }
}
