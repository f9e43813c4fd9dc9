import Foundation

/// The physical floor of noticing a change in a file: `wc -l` reading it once at memory speed
/// (issue 19's baseline), timed from the spawn of the process to its exit, the file in the page
/// cache as the daemon finds a file just written.
///
/// ``ChildRun`` (`posix_spawn` and `wait4`), not Foundation's `Process`: its `waitUntilExit`
/// notices an exit only at its run loop's next 50 ms turn, which made `wc -l` seem to take ~51 ms
/// one run in two. The wait blocks its thread for the few milliseconds `wc` runs; nothing else
/// runs meanwhile.
enum LineCountBaseline {
    /// The wall times of `runs` runs of `wc -l` of the file at `url`, in run order.
    static func times(of url: URL, runs: Int) throws -> [Duration] {
        var times: [Duration] = []
        for _ in 0..<runs {
            let run = try ChildRun.run("/usr/bin/wc", ["-l", url.path])
            times.append(run.duration)
            guard run.status == 0 else {
                throw LatencySubscribers.Failure(description: "wc -l \(url.path) exited with status \(run.status)")
            }
        }
        return times
    }
}
