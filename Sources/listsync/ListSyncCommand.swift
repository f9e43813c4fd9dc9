import ArgumentParser

/// `listsync`, the client command line of ListSync: one subcommand per job,
/// each in its own file under `Commands/`, options shared between commands in
/// their own types under `Options/`.
///
/// Exit status. The file commands (`parse`, `diff`) follow diff(1): 0 success,
/// 1 different, 2 trouble (a bad file, bad options, a usage error). The daemon
/// commands (`list`, `subscribe`, `snapshot`, `mirror`, `exec`): 0 ok, 1 usage
/// or configuration error, 2 daemon unreachable, 3 data error.
@main
struct ListSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listsync",
        abstract: "Read, compare and mirror lists the way the ListSync daemon sees them.",
        discussion: """
            File formats are named with --input-format (csv, tsv, json, ndjson) or taken from the \
            file's extension. Output formats are --output-format for `parse` and --format for \
            `diff`, as diff-like tools spell it.
            """,
        subcommands: [ParseCommand.self, DiffCommand.self, ListCommand.self, SubscribeCommand.self, SnapshotCommand.self, MirrorCommand.self, ExecCommand.self, SinkCommand.self]
    )

    /// Parses the command line, runs the command and maps failures to exit
    /// statuses: ``CommandFailure`` and usage errors exit 2 with a message on
    /// standard error; an ``ExitCode`` a command throws is its status.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            OutputWriter.writeStandardError("\(failure)\n")
            exit(withError: CommandFailure.exitStatus)
        } catch {
            if error is ExitCode || exitCode(for: error) == .success {
                exit(withError: error)  // Help, version and the statuses commands choose.
            }
            OutputWriter.writeStandardError(fullMessage(for: error) + "\n")
            exit(withError: usageErrorStatus(arguments: CommandLine.arguments))
        }
    }

    /// The commands that talk to the daemon, whose usage errors exit 1.
    static let daemonCommands: [ParsableCommand.Type] = [
        ListCommand.self, SubscribeCommand.self, SnapshotCommand.self, MirrorCommand.self, ExecCommand.self, SinkCommand.self,
    ]

    /// The status of a usage error: 1 for the daemon commands, 2 (diff(1)'s
    /// trouble) for the file commands and the root.
    static func usageErrorStatus(arguments: [String]) -> ExitCode {
        let subcommand = arguments.dropFirst().first { !$0.hasPrefix("-") }
        let isDaemonCommand = daemonCommands.contains { $0.configuration.commandName == subcommand }
        return isDaemonCommand ? ExitCode(1) : CommandFailure.exitStatus
    }
}
