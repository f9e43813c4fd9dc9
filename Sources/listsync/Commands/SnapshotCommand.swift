import ArgumentParser
import ListFormats
import ListSyncClient

/// `listsync snapshot NAME`: the watched list as the daemon has it now, in the output shapes of
/// `listsync parse`.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Print a watched list as the daemon has it now.",
        discussion: """
            The list is received as a snapshot, its digest checked, and printed as `listsync parse` \
            prints a file: JSON is an array of records, or an object of arrays when the list is \
            sectioned; CSV has the file's header, and the sections of a JSON object of arrays in a \
            first column, --section-column (default: section).

            Exit status: 0 success, 1 usage or configuration error (no such watch), 2 daemon \
            unreachable, 3 data error (the watch has no valid version).
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("output-format"), help: ArgumentHelp("The format to print.", valueName: "format"))
    var outputFormat: FileFormat = .json

    @OptionGroup var sections: SectionColumnOption

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            let client = ListSyncClient(configuration: self.connection.configuration(reconnect: .never))
            let mirror = try await client.withMirror(of: self.name) { updates in
                try await Self.currentMirror(in: updates)
            }
            var output = OutputWriter()
            output.write(bytes: try MirrorOutput(format: self.outputFormat.listFormat, sectionColumn: self.sections).bytes(of: mirror))
            output.flush()
        }
    }

    /// The first mirror that reflects the daemon's current version.
    ///
    /// - Throws: ``ClientFailure/data(_:)`` when the watch has no valid version to show.
    static func currentMirror(in updates: MirrorUpdates) async throws -> MirroredList {
        for try await update in updates {
            if update.isCurrent { return update.mirror }
            if case .status(let status) = update.event, !update.mirror.hasList, status.state == .invalid || status.state == .missing {
                throw ClientFailure.data("the watch \"\(status.watch)\" has no valid version: \(status.state.rawValue)\(status.error.map { ": \($0)" } ?? "")")
            }
        }
        throw ClientError.cancelled
    }
}
