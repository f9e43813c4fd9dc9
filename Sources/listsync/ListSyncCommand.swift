import ArgumentParser

/// `listsync`, the client command line of ListSync: one subcommand per job,
/// each in its own file under `Commands/`, options shared between commands in
/// their own types under `Options/`.
///
/// Exit status, for every subcommand: 0 success, 2 trouble (a bad file, bad
/// options, a usage error) — as diff(1), whose 1 means "different" and is
/// left to the commands that compare.
@main
struct ListSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listsync",
        abstract: "Read, convert and compare list files the way the ListSync daemon does.",
        discussion: """
            File formats are named with --input-format (csv, tsv, json, ndjson) or taken from the \
            file's extension. Output formats are --output-format for `parse` and --format for \
            `diff`, as diff-like tools spell it.
            """,
        subcommands: [ParseCommand.self, DiffCommand.self, ListCommand.self, SubscribeCommand.self, SnapshotCommand.self, MirrorCommand.self, ExecCommand.self]
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
            exit(withError: CommandFailure.exitStatus)
        }
    }
}
