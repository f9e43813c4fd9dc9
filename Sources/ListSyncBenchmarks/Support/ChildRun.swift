#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of a child process with its output discarded: its wall time from spawn to exit, exit
/// status and peak resident set size — the child's own, from `wait4`'s resource usage, so that
/// a baseline run as a subprocess (`wc -l`, csv-diff, `listsync diff`) is measured the same way,
/// one process at a time. Not Foundation's `Process`, whose `waitUntilExit` notices an exit only
/// at its run loop's next 50 ms turn.
struct ChildRun {
    var duration: Duration
    /// The exit status, or -1 when a signal ended the child.
    var status: Int32
    var peakResidentBytes: Int

    /// Runs `executable` (found on `PATH` when it has no slash) with `arguments` and waits for it.
    static func run(_ executable: String, _ arguments: [String]) throws -> ChildRun {
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        let start = ContinuousClock.now
        let spawned = posix_spawnp(&pid, executable, &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw FormatsBenchmarkError.cannotRun(executable, reason: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
        return ChildRun(
            duration: ContinuousClock.now - start,
            status: status & 0x7f == 0 ? (status >> 8) & 0xff : -1,
            peakResidentBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// The wall time in seconds.
    var seconds: Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
