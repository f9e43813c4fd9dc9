import Subprocess
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches one run of an ``ExecutedCommand`` while it goes on: warns once when it runs longer
/// than ``ExecutedCommand/Limits/warnAfter``, and past ``ExecutedCommand/Limits/timeout`` sends
/// it `SIGTERM`, then `SIGKILL` ``ExecutedCommand/Limits/killGrace`` later. The signals go to the
/// command's process group (it leads one of its own, see ``ExecutedCommand/run(input:environment:limits:cursor:)``),
/// so that the processes it started — the commands of `sh -c`, a pipeline — stop with it and
/// cannot outlive it holding `exec`'s pipes or doing their work late. When the command has
/// terminated after `SIGTERM`, what remains of its group gets `SIGKILL` at once, in ``stop()``.
///
/// It is a task of its own beside the run, since the run's body returns once the input is
/// written while the command may go on; ``stop()`` ends it once the command has terminated.
final class RunWatchdog: Sendable {
    /// Where the watch is.
    private enum State {
        /// Not started.
        case idle
        /// Watching, in this task, the command leading process group `group`; `timedOut` once
        /// the group was sent `SIGTERM` for the command's time limit.
        case watching(Task<Void, Never>, group: pid_t, timedOut: Bool)
        /// Stopped: the command has terminated; signals would reach nobody (or another process).
        case stopped(timedOut: Bool)
    }

    private let state = Mutex(State.idle)

    /// Starts watching `execution` under `limits`; `warning` is what is written when it runs
    /// longer than `limits.warnAfter`.
    func start<Input, Output, Error>(watching execution: Execution<Input, Output, Error>, limits: ExecutedCommand.Limits, warning: String) {
        guard limits.timeout != nil || limits.warnAfter != nil else { return }
        // Made under the lock, so that the task finds itself in the state when it signals.
        self.state.withLock { state in
            guard case .idle = state else { return }
            state = .watching(self.watch(execution, limits: limits, warning: warning), group: execution.processIdentifier.value, timedOut: false)
        }
    }

    private func watch<Input, Output, Error>(_ execution: Execution<Input, Output, Error>, limits: ExecutedCommand.Limits, warning: String) -> Task<Void, Never> {
        Task {
            let start = ContinuousClock.now
            var warning: (at: Duration, line: String)? = limits.warnAfter.map { ($0.duration, warning) }
            var timeout = limits.timeout?.duration
            while warning != nil || timeout != nil {
                let next = [warning?.at, timeout].compactMap(\.self).min() ?? .zero
                do {
                    try await Task.sleep(until: start + next, clock: .continuous)
                } catch {
                    return
                }
                if let pending = warning, pending.at <= next {
                    OutputWriter.writeStandardError(pending.line)
                    warning = nil
                }
                if let limit = timeout, limit <= next {
                    timeout = nil
                    guard self.signal(execution, .terminate) else { return }
                    do {
                        try await Task.sleep(until: start + limit + ExecutedCommand.Limits.killGrace, clock: .continuous)
                    } catch {
                        return
                    }
                    _ = self.signal(execution, .kill)
                    return
                }
            }
        }
    }

    /// Stops watching: the command has terminated. Returns whether it was sent `SIGTERM` for
    /// its time limit; if so, what remains of its process group gets `SIGKILL` now (the group
    /// stays in use while a member is left, so its number names no other process).
    @discardableResult
    func stop() -> Bool {
        self.state.withLock { state in
            let timedOut: Bool
            switch state {
            case .idle: timedOut = false
            case .watching(let task, let group, let was):
                task.cancel()
                timedOut = was
                if was {
                    // ESRCH (nothing left) is the usual answer.
                    _ = kill(-group, SIGKILL)
                }
            case .stopped(let was): timedOut = was
            }
            state = .stopped(timedOut: timedOut)
            return timedOut
        }
    }

    /// Sends `signal` to the command's process group unless the watch was stopped or the
    /// command has exited; whether it was sent (under the lock, so that ``stop()`` cannot pass
    /// in between). A command that exited right at its deadline may be reaped already by
    /// Subprocess before ``stop()`` runs: `waitid` then fails with `ECHILD`, and the command has
    /// exited, not timed out; so has one whose group no longer exists (`kill` fails).
    private func signal<Input, Output, Error>(_ execution: Execution<Input, Output, Error>, _ signal: Signal) -> Bool {
        self.state.withLock { state in
            guard case .watching(let task, let group, _) = state else { return false }
            // A command that has exited but is not reaped yet needs no signal.
            var info = siginfo_t()
            if waitid(P_PID, id_t(execution.processIdentifier.value), &info, WEXITED | WNOHANG | WNOWAIT) == 0 {
                if info._sifields._sigchld.si_pid != 0 { return false }
            } else if errno == ECHILD {
                // Reaped already: it has exited.
                return false
            }
            do {
                try execution.send(signal: signal, toProcessGroup: true)
            } catch {
                return false
            }
            state = .watching(task, group: group, timedOut: true)
            return true
        }
    }
}
