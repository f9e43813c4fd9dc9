import Glibc

/// How long a writer has held a watched file, for a `writing` status (its `since`) in human
/// output: `12 s`, `4 min`, `2 h`.
enum WritingDuration {
    /// The time from `since` (milliseconds since the Unix epoch) to now, rounded down to the
    /// largest unit that fits; `0 s` for a `since` in the future (clocks that disagree).
    static func since(_ since: Int64) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = max(0, (Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000 - since) / 1000)
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min" }
        return "\(seconds / 3600) h"
    }
}
