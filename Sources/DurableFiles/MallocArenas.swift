#if canImport(Glibc)
import Glibc
#endif

/// How many arenas glibc malloc may have (`M_ARENA_MAX`): the heaps among which it spreads
/// threads, so that threads allocating at once rarely wait for one another's lock.
///
/// By default glibc creates up to 8 per core, one for each thread that first allocates while
/// the others are taken, and never gives one back. Each keeps its own free memory: up to the
/// trim threshold at its top (``MallocThresholds``) and whatever is free below that. The daemon
/// has a dozen threads (event loops, the blocking pool, the watcher, the concurrency pool) and
/// an idle daemon with one small watch had 9 arenas besides the main heap. Its work comes in
/// large buffers on one thread at a time (a version's read, ingest, diff), so contention for one
/// arena costs it nothing measurable, while every arena's free memory counts in its resident set.
/// docs/BENCHMARKS.md has the figures.
public struct MallocArenas: Sendable, Hashable {
    /// The most arenas, the main heap counted: 1 puts every thread on the main heap.
    public var limit: Int

    public init(limit: Int) {
        self.limit = limit
    }

    /// The daemon's: one, the main heap.
    public static let daemon = MallocArenas(limit: 1)

    /// The process's `MALLOC_ARENA_MAX`, the variable glibc still reads beside `GLIBC_TUNABLES`.
    public static var processArenaMaxVariable: String? {
        getenv("MALLOC_ARENA_MAX").map { String(cString: $0) }
    }

    /// Sets the process's limit — at start, before its threads allocate: a thread keeps the arena
    /// it was given — unless `tunables` (`GLIBC_TUNABLES`) or `arenaMaxVariable`
    /// (`MALLOC_ARENA_MAX`), the process's own by default, sets it: an administrator's choice
    /// stands. Returns whether the allocator took it (always on glibc; elsewhere there is nothing
    /// to set).
    @discardableResult
    public func apply(
        tunables: String? = MallocThresholds.processTunables, arenaMaxVariable: String? = Self.processArenaMaxVariable
    ) -> Bool {
        guard !(tunables ?? "").contains("glibc.malloc.arena_max"), arenaMaxVariable == nil else {
            return false
        }
        return MallocOption.arenaMax.set(self.limit)
    }
}
