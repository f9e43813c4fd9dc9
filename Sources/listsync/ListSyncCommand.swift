import ArgumentParser
import ListSyncProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `listsync`, the client command line of ListSync: one subcommand per job,
/// each in its own file under `Commands/`, options shared between commands in
/// their own types under `Options/`.
///
/// Exit status. The file commands (`parse`, `diff`) follow diff(1): 0 success,
/// 1 different, 2 trouble (a bad file, bad options, a usage error). The daemon
/// commands (`list`, `subscribe`, `snapshot`, `mirror`, `exec`, `sink`): 0 ok, 1 usage
/// or configuration error, 2 daemon unreachable, 3 data error, 4 (`exec`) the
/// command failed and `--on-error` is `stop`, 5 the daemon does not permit this
/// user. Any other usage error (no or an unknown subcommand) exits 1.
@main
struct ListSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listsync",
        abstract: "Read, compare and mirror lists the way the ListSync daemon sees them.",
        discussion: """
            File formats are named with --input-format (csv, tsv, json, ndjson) or taken from the \
            file's extension. Output formats are --output-format for `parse` and --format for \
            `diff`, as diff-like tools spell it.

            The commands that talk to the daemon take --socket PATH after their name or before it \
            (`listsync --socket PATH list`).
            """,
        version: ListSyncVersion.current,
        subcommands: [ParseCommand.self, DiffCommand.self, ListCommand.self, SubscribeCommand.self, SnapshotCommand.self, MirrorCommand.self, ExecCommand.self, SinkCommand.self, MetricsCommand.self]
    )

    /// `--socket PATH` before the subcommand: declared here so that help and the completion
    /// scripts know it; ``main()`` moves it after the subcommand's name, whose options use it
    /// (``ConnectionOptions/movingGlobalOptions(in:)``).
    @OptionGroup var connection: ConnectionOptions

    /// Parses the command line, runs the command and maps failures to exit
    /// statuses: ``CommandFailure`` exits 2 with a message on standard error, a
    /// usage error 1 or 2 (``usageErrorStatus(arguments:)``); an ``ExitCode`` a
    /// command throws is its status.
    ///
    /// `SIGPIPE` is ignored, so that writing to a command `exec` runs that stopped reading
    /// fails with `EPIPE` instead of killing `listsync`; ``OutputWriter`` ends the program as
    /// `SIGPIPE` would when its own reader goes away. Commands started by `exec` get the default
    /// disposition back.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        let arguments = ConnectionOptions.movingGlobalOptions(in: Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try await asyncParseAsRoot(arguments)
            // The root's --socket parses after any subcommand's name; only the daemon's use it.
            let name = type(of: command).configuration.commandName
            // `sink postgres` and `sink sqlite` are daemon commands too.
            let daemonCommandNames = daemonCommands.map { $0.configuration.commandName ?? "" }
            let acceptingSocket = daemonCommands.flatMap { [$0] + $0.configuration.subcommands }.map { $0.configuration.commandName ?? "" }
            if !acceptingSocket.contains(name ?? ""), arguments.contains(where: { $0 == "--socket" || $0.hasPrefix("--socket=") }) {
                throw ValidationError("--socket is an option of the commands that talk to the daemon: \(daemonCommandNames.joined(separator: ", "))")
            }
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
            exit(withError: usageErrorStatus(arguments: arguments))
        }
    }

    /// The commands that talk to the daemon, whose usage errors exit 1.
    static let daemonCommands: [ParsableCommand.Type] = [
        ListCommand.self, SubscribeCommand.self, SnapshotCommand.self, MirrorCommand.self, ExecCommand.self, SinkCommand.self,
        MetricsCommand.self,
    ]

    /// The commands that follow diff(1), whose usage errors exit 2 ("trouble").
    static let fileCommands: [ParsableCommand.Type] = [ParseCommand.self, DiffCommand.self]

    /// The status of a usage error: 2 (diff(1)'s trouble) for the file commands, 1 for
    /// everything else — the daemon commands, the root, a mistyped subcommand. `arguments`
    /// follow the program's name.
    static func usageErrorStatus(arguments: [String]) -> ExitCode {
        let subcommand = arguments.first { !$0.hasPrefix("-") }
        let isFileCommand = fileCommands.contains { $0.configuration.commandName == subcommand }
        return isFileCommand ? CommandFailure.exitStatus : ExitCode(1)
    }
}
