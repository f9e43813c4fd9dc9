import ArgumentParser
import ListSyncClient
import Subprocess

/// `listsync exec NAME -- CMD [ARGS...]`: runs a command once per changeset, in order, one at a
/// time, with the changeset on its standard input.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a command once per changeset, with the changeset on its standard input.",
        discussion: """
            The command gets one line of JSON on standard input — the changeset message as \
            `subscribe --format ndjson` prints it — and LISTSYNC_WATCH and LISTSYNC_CURSOR in its \
            environment. Commands run one at a time, in the order of the changesets; the next \
            changeset is not read before the command has exited. A command that fails is reported \
            on standard error and the stream goes on.

            The first snapshot runs nothing. A later one (after the daemon restarted, or the data \
            had to be resynchronized) runs the command with the whole list as a "snapshot" message: \
            replace what you hold.

            Exit status: 1 usage or configuration error (no such watch, no command), 2 daemon \
            unreachable at start, 3 data error.
            """
    )

    @Argument(help: "The watch's name.")
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            guard let program = self.command.first else { throw ClientFailure.usage("no command to run; put it after --") }
            let executable: Executable = program.contains("/") ? .path(.init(program)) : .name(program)
            let arguments = Arguments(Array(self.command.dropFirst()))
            let client = ListSyncClient(configuration: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1)))
            try await client.withMirror(of: self.name) { updates in
                var snapshots = 0
                for try await update in updates {
                    if let note = HumanUpdateRenderer.note(for: update) { OutputWriter.writeStandardError(note) }
                    switch update.event {
                    case .changeset:
                        break
                    case .snapshot:
                        snapshots += 1
                        guard snapshots > 1 else { continue }
                    case .status, .subscribed, .resyncing, .disconnected:
                        continue
                    }
                    guard let line = UpdateLines.line(for: update), let cursor = update.mirror.cursor else { continue }
                    try await Self.run(executable, arguments, input: line, watch: self.name, cursor: cursor.description)
                }
            }
        }
    }

    /// Runs the command once with `input` and waits for it.
    private static func run(_ executable: Executable, _ arguments: Arguments, input: [UInt8], watch: String, cursor: String) async throws {
        let result: ExecutionResult<Void, FileDescriptorOutput, FileDescriptorOutput>
        do {
            result = try await Subprocess.run(
                executable, arguments: arguments,
                environment: .inherit.updating(["LISTSYNC_WATCH": watch, "LISTSYNC_CURSOR": cursor]),
                input: .array(input), output: FileDescriptorOutput.currentStandardOutput, error: FileDescriptorOutput.currentStandardError)
        } catch {
            throw ClientFailure.usage("cannot run \(executable): \(error)")
        }
        if !result.terminationStatus.isSuccess {
            OutputWriter.writeStandardError("listsync: \(executable) failed (\(result.terminationStatus)) on changeset \(cursor)\n")
        }
    }
}
