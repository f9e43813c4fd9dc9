import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Passes the signals that end `exec` — `SIGINT` (Ctrl-C), `SIGTERM`, `SIGHUP` — on to the
/// process group of the command it is running, which leads a group of its own
/// (``ExecutedCommand/run(input:environment:limits:cursor:)``) and so does not get the terminal's
/// `SIGINT` or a `kill` of `exec` by itself: without this, the command would go on, orphaned.
///
/// `exec` then ends as the signal ends it (the default disposition, raised again). A run of
/// `exec --state` (``RecordedRun``) instead goes on after passing the signal while its command
/// runs, so that the command's outcome is still recorded (a command that exits 0 on `SIGTERM`
/// has succeeded); it ends by the signal when no command runs.
///
/// The handler only reads atomics and calls `kill`, `signal` and `raise`, which are
/// async-signal-safe.
enum SignalForwarding {
    /// The signals passed on.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The process group (and leader's id) of the command running now; 0 when none runs.
    fileprivate static let group = Atomic<Int32>(0)
    /// Whether this process goes on after passing a signal to a running command.
    fileprivate static let outlivesCommand = Atomic<Bool>(false)

    /// Installs the handler for ``signals``; `outlivingCommand` for a ``RecordedRun``. A signal
    /// this process was started ignoring (`exec … &` in a script ignores `SIGINT`) stays
    /// ignored, as the command's is.
    static func install(outlivingCommand: Bool) {
        // Initialized here, so that the handler never runs a static's one-time initializer.
        Self.group.store(0, ordering: .sequentiallyConsistent)
        Self.outlivesCommand.store(outlivingCommand, ordering: .sequentiallyConsistent)
        for number in Self.signals {
            var current = sigaction()
            if sigaction(number, nil, &current) == 0, let handler = current.__sigaction_handler.sa_handler,
                unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            {
                continue
            }
            _ = signal(number, forwardSignal)
        }
    }

    /// The command leading process group `group` is running: signals go to it until
    /// ``finished()``.
    static func running(group: pid_t) {
        Self.group.store(group, ordering: .sequentiallyConsistent)
    }

    /// The command has terminated (and was reaped): no signal goes to its group any more.
    static func finished() {
        Self.group.store(0, ordering: .sequentiallyConsistent)
    }
}

/// The handler of ``SignalForwarding/signals``.
private func forwardSignal(_ number: Int32) {
    let group = SignalForwarding.group.load(ordering: .sequentiallyConsistent)
    if group > 0 {
        // The group, and its leader by itself in case it has not made its group yet.
        _ = kill(-group, number)
        _ = kill(group, number)
        if SignalForwarding.outlivesCommand.load(ordering: .sequentiallyConsistent) { return }
    }
    _ = signal(number, SIG_DFL)
    _ = raise(number)
}
