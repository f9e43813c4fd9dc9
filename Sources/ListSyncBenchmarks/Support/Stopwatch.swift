/// Times repeated runs of a piece of code and reports their median.
enum Stopwatch {
    /// The median wall time of `runs` runs of `body`, in seconds, and the
    /// result of the last run.
    static func median<Result>(runs: Int, _ body: () -> Result) -> (seconds: Double, result: Result) {
        let timed = times(runs: runs, body)
        return (timed.seconds[timed.seconds.count / 2], timed.result)
    }

    /// The wall times of `runs` runs of `body`, in seconds, fastest first,
    /// and the result of the last run. On a shared machine the fastest run
    /// is the best estimate of the code's own speed, the median of what a
    /// user sees.
    static func times<Result>(runs: Int, _ body: () -> Result) -> (seconds: [Double], result: Result) {
        precondition(runs > 0)
        var times = [Double]()
        var result: Result?
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let start = clock.now
            result = body()
            let elapsed = clock.now - start
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        times.sort()
        // swiftlint:disable:next force_unwrapping
        return (times, result!)
    }
}
