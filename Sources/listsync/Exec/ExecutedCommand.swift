import ListSyncClient
import Subprocess

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command `listsync exec` runs once per changeset: started with the changeset on its
/// standard input, waited for, and judged.
///
/// Standard input is a pipe written while the command runs, in blocks, so a command that reads
/// slowly only slows the stream down. A command that stops reading — it exits early, closes its
/// input, or is killed — makes the next write fail with `EPIPE` (the CLI ignores `SIGPIPE`, see
/// ``ListSyncCommand``): that is an outcome to report, never a failure of `listsync` itself.
struct ExecutedCommand {
    /// The command line as the user gave it, for messages.
    let commandLine: [String]
    private let executable: Executable
    private let arguments: Arguments

    /// Bytes written to the pipe at a time: a pipe buffer's worth.
    private static let blockSize = 1 << 16

    /// The command `commandLine` names (a path when it has a slash, else looked up in `PATH`);
    /// `nil` when it is empty.
    init?(commandLine: [String]) {
        guard let program = commandLine.first else { return nil }
        self.commandLine = commandLine
        self.executable = program.contains("/") ? .path(.init(program)) : .name(program)
        self.arguments = Arguments(Array(commandLine.dropFirst()))
    }

    /// How long a run may take, and when it is reported as long.
    struct Limits: Sendable {
        /// When the command gets `SIGTERM` (and ``killGrace`` later `SIGKILL`); `nil`: never.
        var timeout: DurationArgument?
        /// When a run still going is reported on standard error (once); `nil`: never.
        var warnAfter: DurationArgument?

        /// How long a command has to exit after `SIGTERM` before it gets `SIGKILL`.
        static let killGrace = Duration.seconds(5)
        /// ``warnAfter``'s default: a minute.
        static let defaultWarnAfter = DurationArgument(milliseconds: 60_000, description: "1m")
        /// No limit and no warning: for a run made by a process of its own, which applies them.
        static let none = Limits(timeout: nil, warnAfter: nil)
    }

    /// How a run ended.
    struct Outcome {
        /// How the command terminated.
        let status: TerminationStatus
        /// The time limit the command ran over, when it was stopped for that.
        var timedOut: DurationArgument? = nil
        /// The bytes of input the command did not take because it stopped reading before the
        /// end (0 when it took all of it). Not a failure by itself: a command may want only the
        /// start of its input.
        let untakenBytes: Int
        /// The input's size.
        let inputBytes: Int

        /// Whether the command exited with status 0 within its time limit.
        var isSuccess: Bool { self.status.isSuccess && self.timedOut == nil }
    }

    /// Runs the command once with `input` on its standard input and `environment` added to
    /// `listsync`'s own, and waits for it to terminate. Its standard output and error are
    /// `listsync`'s. The command runs in a process group of its own, so that what it starts
    /// (the commands of `sh -c`, a pipeline) is signalled with it. A run still going after
    /// `limits.warnAfter` is reported on standard error (as on changeset `cursor`); one still
    /// going after `limits.timeout` gets `SIGTERM`, and `SIGKILL` ``Limits/killGrace`` later if
    /// it has not exited by then, each sent to its whole process group; what remains of the
    /// group when the command has terminated after `SIGTERM` gets `SIGKILL` at once. While it
    /// runs, the `SIGINT`, `SIGTERM` and `SIGHUP` this process gets go to its group too
    /// (``SignalForwarding``).
    ///
    /// - Throws: ``ClientFailure/usage(_:)`` when the command cannot be started.
    func run(input: [UInt8], environment: [Environment.Key: String?], limits: Limits, cursor: String) async throws(ClientFailure) -> Outcome {
        let result: ExecutionResult<Int, FileDescriptorOutput, FileDescriptorOutput>
        let watchdog = RunWatchdog()
        var options = PlatformOptions()
        // A group of its own, led by the command (setpgid(0, 0)): the watchdog signals the group.
        options.processGroupID = 0
        do {
            result = try await Subprocess.run(
                self.executable, arguments: self.arguments, environment: .inherit.updating(environment), platformOptions: options,
                input: .inputWriter, output: .currentStandardOutput, error: .currentStandardError
            ) { execution in
                SignalForwarding.running(group: execution.processIdentifier.value)
                watchdog.start(watching: execution, limits: limits, warning: self.longRunWarning(after: limits.warnAfter, cursor: cursor))
                return await Self.write(input, to: execution.standardInputWriter)
            }
        } catch {
            SignalForwarding.finished()
            watchdog.stop()
            throw ClientFailure.usage("cannot run \(self.commandLine.joined(separator: " ")): \(error)")
        }
        SignalForwarding.finished()
        let timedOut = watchdog.stop() ? limits.timeout : nil
        return Outcome(status: result.terminationStatus, timedOut: timedOut, untakenBytes: input.count - result.closureResult, inputBytes: input.count)
    }

    /// The line that reports a run still going after `warnAfter`.
    private func longRunWarning(after warnAfter: DurationArgument?, cursor: String) -> String {
        "listsync: warning: \(self.commandLine.first ?? "the command") has been running for more than \(warnAfter?.description ?? "") on changeset \(cursor)\n"
    }

    /// Writes `input` block by block until the end or until the command stops taking it (the
    /// pipe is broken, or the writer gives up because the command exited), then closes the pipe.
    /// Returns the bytes written.
    private static func write(_ input: [UInt8], to writer: StandardInputWriter) async -> Int {
        var written = 0
        while written < input.count {
            let end = min(written + Self.blockSize, input.count)
            guard let count = try? await writer.write(Array(input[written..<end])), count == end - written else { break }
            written = end
        }
        // Closing a pipe whose reader has gone cannot fail in a way the command would notice.
        try? await writer.finish()
        return written
    }
}

extension ExecutedCommand.Outcome {
    /// What to tell on standard error about this run of `command` on changeset `cursor`, a line
    /// for each of: it failed, it stopped reading its input; `nil` when it took its whole input
    /// and exited 0.
    ///
    ///     listsync: ./load failed on changeset 5f0c2a4e19b7d3a8:12: killed by signal 9 (Killed)
    ///     listsync: ./load failed on changeset 5f0c2a4e19b7d3a8:12: timed out after 30s, killed by signal 15 (Terminated)
    ///     listsync: ./load stopped reading its input on changeset 5f0c2a4e19b7d3a8:13 after 65536 of 1048576 bytes
    func report(of command: ExecutedCommand, cursor: String) -> String? {
        let name = command.commandLine.first ?? ""
        var lines = ""
        switch self.status {
        case .exited(0) where self.timedOut == nil: break
        case .exited(let code):
            lines += "listsync: \(name) failed on changeset \(cursor): \(self.timeoutNote)exited with status \(code)\n"
        case .signaled(let signal):
            lines += "listsync: \(name) failed on changeset \(cursor): \(self.timeoutNote)killed by signal \(signal) (\(String(cString: strsignal(signal))))\n"
        }
        if self.untakenBytes > 0 {
            lines += "listsync: \(name) stopped reading its input on changeset \(cursor) after \(self.inputBytes - self.untakenBytes) of \(self.inputBytes) bytes\n"
        }
        return lines.isEmpty ? nil : lines
    }

    /// `timed out after 500ms, ` when the command was stopped for running over its limit.
    private var timeoutNote: String {
        self.timedOut.map { "timed out after \($0), " } ?? ""
    }
}
