import Glibc

/// Wall-clock times for what clients are told, from the monotonic instants the watcher keeps.
enum WallClock {
    /// When `instant` was, in milliseconds since the Unix epoch (as precise as the clocks agree).
    static func unixMilliseconds(at instant: ContinuousClock.Instant) -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nowMilliseconds = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
        let age = ContinuousClock.now - instant
        return nowMilliseconds - age.components.seconds * 1000 - age.components.attoseconds / 1_000_000_000_000_000
    }
}
