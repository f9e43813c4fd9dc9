import Foundation

/// One run of a child process with its output discarded: its wall time from spawn to exit, exit
/// status and, when asked, its peak resident set size, so that a baseline run as a subprocess
/// (`wc -l`, csv-diff, `listsync diff`) is measured the same way, one process at a time. Not
/// Foundation's `Process`, whose `waitUntilExit` notices an exit only at its run loop's next 50 ms
/// turn.
///
/// The peak RSS comes from `/usr/bin/time -f %M`, which forks the child from its own small
/// process: `wait4`'s `ru_maxrss` of a child spawned from here would be at least this process's
/// RSS, which Linux carries over when a `posix_spawn` child (sharing this process's memory until
/// it execs) execs.
struct ChildRun {
    var duration: Duration
    /// The exit status, or -1 when a signal ended the child.
    var status: Int32
    /// The child's peak resident set size, when it was measured.
    var peakResidentBytes: Int?

    /// Runs `executable` (found on `PATH` when it has no slash) with `arguments` and waits for it;
    /// under `/usr/bin/time` when `measuringPeakMemory` (which adds its fork, about a millisecond).
    static func run(_ executable: String, _ arguments: [String], measuringPeakMemory: Bool = false) throws -> ChildRun {
        let report = measuringPeakMemory ? "/tmp/listsync-child-run-\(getpid()).maxrss" : nil
        let command = report.map { ["/usr/bin/time", "-f", "%M", "-o", $0, executable] } ?? [executable]
        var argv: [UnsafeMutablePointer<CChar>?] = (command + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        let start = ContinuousClock.now
        let spawned = posix_spawnp(&pid, command[0], &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw FormatsBenchmarkError.cannotRun(executable, reason: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let duration = ContinuousClock.now - start
        // `/usr/bin/time` exits with its child's status and writes the peak in KiB on the report's last line.
        let kibibytes = report.flatMap { path in
            defer { unlink(path) }
            return (try? String(contentsOfFile: path, encoding: .utf8))?
                .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        return ChildRun(
            duration: duration, status: status & 0x7f == 0 ? (status >> 8) & 0xff : -1,
            peakResidentBytes: kibibytes.map { $0 * 1024 })
    }

    /// The wall time in seconds.
    var seconds: Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
