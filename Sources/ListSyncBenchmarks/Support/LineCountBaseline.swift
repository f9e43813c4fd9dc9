import Foundation

/// The physical floor of noticing a change in a file: `wc -l` reading it once at memory speed
/// (issue 19's baseline), timed from the start of the process to its exit, the file in the page
/// cache as the daemon finds a file just written.
enum LineCountBaseline {
    /// The wall times of `runs` runs of `wc -l` of the file at `url`, in run order.
    static func times(of url: URL, runs: Int) throws -> [Duration] {
        var times: [Duration] = []
        for _ in 0..<runs {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/wc")
            process.arguments = ["-l", url.path]
            process.standardOutput = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            times.append(ContinuousClock.now - start)
            guard process.terminationStatus == 0 else {
                throw LatencySubscribers.Failure(description: "wc -l \(url.path) exited with \(process.terminationStatus)")
            }
        }
        return times
    }
}
