import Foundation

/// The physical floor of noticing a change in a file: `wc -l` reading it once at memory speed
/// (issue 19's baseline), timed from the spawn of the process to its exit, the file in the page
/// cache as the daemon finds a file just written.
///
/// `posix_spawn` and `waitpid`, not Foundation's `Process`: its `waitUntilExit` notices an exit
/// only at its run loop's next 50 ms turn, which made `wc -l` seem to take ~51 ms one run in two.
/// The wait blocks its thread for the few milliseconds `wc` runs; nothing else runs meanwhile.
enum LineCountBaseline {
    /// The wall times of `runs` runs of `wc -l` of the file at `url`, in run order.
    static func times(of url: URL, runs: Int) throws -> [Duration] {
        var times: [Duration] = []
        for _ in 0..<runs {
            let arguments = ["/usr/bin/wc", "-l", url.path]
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            var pid = pid_t()
            let start = ContinuousClock.now
            let spawned = posix_spawn(&pid, "/usr/bin/wc", &actions, nil, &argv, environ)
            guard spawned == 0 else {
                throw LatencySubscribers.Failure(description: "posix_spawn wc: \(String(cString: strerror(spawned)))")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            times.append(ContinuousClock.now - start)
            guard status == 0 else {
                throw LatencySubscribers.Failure(description: "wc -l \(url.path) exited with status \(status)")
            }
        }
        return times
    }
}
