import ArgumentParser
import ListSyncClient

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
            changeset is not read before the command has exited. The input is written while the \
            command runs, so a command may read it slowly, or only in part: one that stops reading \
            (exits, closes its input) is reported on standard error, and that alone is no failure.

            A command that exits with a status other than 0 or is killed by a signal has failed: \
            it is reported on standard error, and with --on-error continue (the default) the \
            stream goes on; with --on-error stop, `exec` exits with status 4.

            The first snapshot runs nothing. A later one (after the daemon restarted, or the data \
            had to be resynchronized) runs the command with the whole list as a "snapshot" message: \
            replace what you hold.

            Exit status: 1 usage or configuration error (no such watch, no command, a command that \
            cannot be started), 2 daemon unreachable at start, 3 data error, 4 the command failed \
            and --on-error is stop.
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("on-error"), help: ArgumentHelp("What to do after a command failed: go on with the next changeset, or stop (exit status 4).", valueName: "continue|stop"))
    var onError: FailurePolicy = .continue

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    /// What `exec` does after a command failed.
    enum FailurePolicy: String, CaseIterable, ExpressibleByArgument {
        /// Report it and go on with the next changeset.
        case `continue`
        /// Report it and exit with ``ClientFailure/commandFailed(_:)``'s status.
        case stop
    }

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            guard let command = ExecutedCommand(commandLine: self.command) else { throw ClientFailure.usage("no command to run; put it after --") }
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
                    let outcome = try await command.run(
                        input: line, environment: ["LISTSYNC_WATCH": self.name, "LISTSYNC_CURSOR": cursor.description])
                    if let report = outcome.report(of: command, cursor: cursor.description) {
                        OutputWriter.writeStandardError(report)
                    }
                    if !outcome.isSuccess, self.onError == .stop {
                        throw ClientFailure.commandFailed("stopping after \(command.commandLine.first ?? "the command") failed on changeset \(cursor) (--on-error stop)")
                    }
                }
            }
        }
    }
}
