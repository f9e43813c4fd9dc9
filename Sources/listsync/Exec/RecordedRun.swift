import ArgumentParser
import DurableFiles
import ListSyncClient
import ListSyncProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of `exec --state FILE`'s command, made by a `listsync` process of its own
/// (`listsync exec NAME --state FILE --recorded-run KIND/CURSOR/BYTES -- CMD…`, an internal
/// option), so that the command's success and its record are one step that `exec` being killed
/// cannot split.
///
/// `exec` hands the run its whole input and waits for it. The run takes the input (and runs
/// nothing when it ends short: `exec` was killed while handing it over), then takes an exclusive
/// lock on `FILE.lock`, reads `FILE.done` — the cursor of the last changeset whose command
/// succeeded — and runs the command unless that changeset is done already; when the command
/// exits 0, it replaces `FILE.done` with its cursor (durably) before it exits. Being a process of
/// its own, it goes on to the record when `exec` is killed while the command runs; a restarted
/// `exec` that gets to the same changeset starts a run that waits for the lock and then finds
/// the changeset done. So a changeset's command that exits 0 runs once, whatever moment `exec`
/// is killed at. What remains: a run killed itself (or the machine stopping) between the
/// command's exit and the record, and a command killed mid-run, run the command again.
struct RecordedRun: ExpressibleByArgument, CustomStringConvertible {
    /// What the command is given.
    enum Kind: String {
        /// A changeset: run once, skipped when done.
        case changeset
        /// A whole list (a new epoch, a resynchronization): always run, since the command
        /// replaces what it holds with it.
        case snapshot
    }

    let kind: Kind
    let cursor: Cursor
    /// The size of the input `exec` writes.
    let inputBytes: Int

    init(kind: Kind, cursor: Cursor, inputBytes: Int) {
        self.kind = kind
        self.cursor = cursor
        self.inputBytes = inputBytes
    }

    /// `KIND/EPOCH:SEQ/BYTES`.
    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let kind = Kind(rawValue: String(parts[0])), let cursor = Cursor(String(parts[1])),
            let inputBytes = Int(parts[2]), inputBytes >= 0
        else { return nil }
        self.init(kind: kind, cursor: cursor, inputBytes: inputBytes)
    }

    var description: String { "\(self.kind.rawValue)/\(self.cursor)/\(self.inputBytes)" }

    /// The `listsync` process that makes this run of `command` for `watch`, recording in `state`,
    /// under `limits` (which that process applies to the command).
    func process(running command: ExecutedCommand, watch: String, state: StateJournal, limits: ExecutedCommand.Limits) -> ExecutedCommand? {
        var options = ["--state", state.path, "--recorded-run", self.description]
        if let timeout = limits.timeout { options += ["--timeout", timeout.description] }
        if let warnAfter = limits.warnAfter { options += ["--warn-after", warnAfter.description] }
        return ExecutedCommand(commandLine: [Self.executable, "exec", watch] + options + ["--"] + command.commandLine)
    }

    /// Exit statuses of the run's process beside 0 (the command succeeded, or was done before)
    /// and ``ClientFailure``'s: the command failed.
    static let commandFailedStatus: Int32 = 4

    /// Makes the run in this process: takes the input from standard input, runs `command` for
    /// `watch` unless done, under `limits`, and records it in `state`'s `.done` file when it
    /// succeeds (a command stopped for its time limit has failed).
    ///
    /// - Returns: whether the command succeeded (or had succeeded before).
    /// - Throws: ``ClientFailure/data(_:)`` when the input ends short or the record cannot be
    ///   written; ``ClientFailure/usage(_:)`` when the command cannot be started.
    func perform(_ command: ExecutedCommand, watch: String, state: StateJournal, limits: ExecutedCommand.Limits) async throws(ClientFailure) -> Bool {
        let input: [UInt8]
        do {
            input = try FileDescriptorIO.readAll(from: 0)
        } catch {
            throw .data("changeset \(self.cursor): cannot read the input: \(error.reason)")
        }
        guard input.count == self.inputBytes else {
            throw .data("changeset \(self.cursor): the input ended after \(input.count) of \(self.inputBytes) bytes (exec is gone); nothing run")
        }
        let lock = try Self.lock(state.path + ".lock")
        defer { close(lock) }
        var done = ClientState(file: StateJournal(path: state.path + ".done"), kind: .cursor)
        let last = done.restore(of: watch).mirror(of: watch).cursor
        if self.kind == .changeset, let last, last.epoch == self.cursor.epoch, last.seq >= self.cursor.seq {
            OutputWriter.writeStandardError("listsync: changeset \(self.cursor) was done before exec restarted; not run again\n")
            return true
        }
        let outcome = try await command.run(
            input: input, environment: ["LISTSYNC_WATCH": watch, "LISTSYNC_CURSOR": self.cursor.description], limits: limits, cursor: self.cursor.description)
        if let report = outcome.report(of: command, cursor: self.cursor.description) {
            OutputWriter.writeStandardError(report)
        }
        guard outcome.isSuccess else { return false }
        do {
            try done.save(MirroredList(watch: watch, following: self.cursor), after: nil)
        } catch {
            throw .data("\(error)")
        }
        return true
    }

    /// Opens `path` (creating it) and waits for an exclusive lock on it; the descriptor holds it.
    private static func lock(_ path: String) throws(ClientFailure) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw .data("\(SystemCallError.lastError(of: "open", path: path))") }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let failure = SystemCallError.lastError(of: "flock", path: path, operation: "lock")
                close(descriptor)
                throw .data("\(failure)")
            }
        }
        return descriptor
    }

    /// This `listsync`'s executable: `/proc/self/exe` on Linux, else the name it was started by.
    private static var executable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }
}
