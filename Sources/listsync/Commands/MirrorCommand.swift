import ArgumentParser
import ListFormats
import ListSyncClient

/// `listsync mirror NAME --output FILE`: keeps a file equal to a watched list, replacing it
/// atomically after every verified snapshot and changeset.
struct MirrorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror",
        abstract: "Keep a file equal to a watched list.",
        discussion: """
            After the snapshot and after every changeset (each verified against the daemon's \
            digest), the whole list is written to a temporary file in FILE's directory, flushed to \
            disk and renamed over FILE, so readers always see a complete version. The command \
            reconnects by itself and resumes from the last version it applied; a restarted daemon \
            sends a fresh snapshot. While the watched file is invalid or missing, FILE keeps the \
            last good version.

            The format is --output-format, or FILE's extension. A CSV mirror of a JSON object of \
            arrays keeps each record's section in a first column, --section-column (default: \
            section).

            Exit status: 0 after --once, 1 usage or configuration error (no such watch), 2 daemon \
            unreachable at start, 3 data error (FILE cannot be written, or the daemon's data does \
            not verify).
            """
    )

    @Argument(help: "The watch's name.", completion: WatchNameCompletion.kind)
    var name: String

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The file to keep equal to the list.", valueName: "file"))
    var output: String

    @Option(name: .customLong("output-format"), help: ArgumentHelp("The file's format. Default: from its extension.", valueName: "format"))
    var outputFormat: FileFormat?

    @OptionGroup var sections: SectionColumnOption

    @Flag(help: "Exit as soon as FILE reflects the daemon's current version.")
    var once = false

    func run() async throws {
        try await ClientFailure.exitingOnFailure {
            guard let format = self.outputFormat?.listFormat ?? ListFormat(path: self.output) else {
                throw ClientFailure.usage("\(self.output): cannot tell the format from the file name; use --output-format csv|tsv|json|ndjson")
            }
            let writer = AtomicFileWriter(path: self.output)
            let output = MirrorOutput(format: format, sectionColumn: self.sections)
            // The first connection must work; after that, reconnect for as long as it takes.
            let client = ListSyncClient(configuration: self.connection.configuration(reconnect: ReconnectPolicy(initialAttempts: 1)))
            try await client.withMirror(of: self.name) { updates in
                for try await update in updates {
                    switch update.event {
                    case .snapshot, .changeset:
                        let bytes = try output.bytes(of: update.mirror)
                        do {
                            try writer.write(bytes)
                        } catch {
                            throw ClientFailure.data("\(error)")
                        }
                    case .status, .subscribed, .resyncing, .disconnected:
                        if let note = HumanUpdateRenderer.note(for: update) { OutputWriter.writeStandardError(note) }
                    }
                    if self.once, update.isCurrent { return }
                }
            }
        }
    }
}
