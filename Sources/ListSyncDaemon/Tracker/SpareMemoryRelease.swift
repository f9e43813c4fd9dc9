/// When a tracker gives back the memory it keeps for its next version (its ``ListBufferPool``):
/// after a delay learned from how often the file is saved, bounded by `spare_memory_max_idle_ms`.
///
/// The pool holds a retired version's storage — the file's bytes and its records, about the
/// file's size plus 40 bytes a record — so that the next read writes into memory already resident
/// (and its records only where they changed) instead of fresh pages the kernel zeroes. Kept for
/// ever, it doubles an idle watch's memory; given back after a fixed 1.5 s, as it was, every save
/// of a file saved less often than that (a lone save; at 10M rows every save, the writer taking
/// longer) pays fresh memory: a one-row version of a 1M-row NDJSON file cost ~30 ms of the daemon's
/// CPU p50, 61 ms mean, against ~12 ms back to back (issue 19).
///
/// So the delay follows the watch's saves: ``intervalsKept`` times the longest of the last
/// ``intervalsRemembered`` intervals between reads, at least ``minimum`` and at most ``maximum``.
/// A file saved every 2 s keeps its spare for 6 s after each save, and a save that comes on time
/// finds it; a watch that goes quiet gives it back after those 6 s. An interval longer than
/// ``maximum`` says the saves do not come regularly enough to be worth the memory: the intervals
/// before it are forgotten and the spare goes after ``minimum`` again, as after a burst.
///
/// The peak is unchanged: the pool holds one version's storage at most, which the next read
/// writes into instead of allocating its own.
struct SpareMemoryRelease: Sendable, Hashable {
    /// How many of the longest recent intervals the spare is kept for after a read.
    static let intervalsKept = 3
    /// How many intervals between reads are remembered.
    static let intervalsRemembered = 4

    /// The least time the spare is kept after a read (a burst of saves reuses it): 1.5 s unless a
    /// test says otherwise (``FileTracker/idleBufferRelease``).
    var minimum: Duration
    /// The most time it is kept (`spare_memory_max_idle_ms`); zero gives it back after every read.
    var maximum: Duration
    /// When the last read began.
    private var lastRead: ContinuousClock.Instant?
    /// The intervals between the last reads, the newest last (at most ``intervalsRemembered``).
    private(set) var intervals: [Duration] = []

    /// A policy that keeps the spare at least `minimum` and at most `maximum` after a read.
    init(minimum: Duration, maximum: Duration) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Notes a read that began at `instant`: the interval since the one before joins the recent
    /// ones, or, longer than ``maximum``, clears them.
    mutating func noteRead(at instant: ContinuousClock.Instant) {
        defer { self.lastRead = instant }
        guard let lastRead else { return }
        let interval = lastRead.duration(to: instant)
        guard interval <= self.maximum else {
            self.intervals.removeAll()
            return
        }
        self.intervals.append(interval)
        if self.intervals.count > Self.intervalsRemembered {
            self.intervals.removeFirst(self.intervals.count - Self.intervalsRemembered)
        }
    }

    /// How long after a read, with no other request, the spare is given back.
    var delay: Duration {
        let learned = (self.intervals.max() ?? .zero) * Self.intervalsKept
        return min(self.maximum, max(self.minimum, learned))
    }
}
