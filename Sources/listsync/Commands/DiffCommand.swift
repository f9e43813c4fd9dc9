import ArgumentParser
import ListFormats

/// `listsync diff OLD NEW`: what changed between two versions of a list
/// file, as the daemon would broadcast it — offline.
struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two versions of a list file, offline.",
        discussion: """
            Records are matched by --key (or by their whole content) and compared by content: JSON \
            whitespace and member order, CSV quoting and --ignore'd fields do not count. Header \
            (schema) changes are reported too.

            --format human prints one line per change: + inserted, − deleted, ~ updated (the fields \
            that changed, JSON Pointers inside nested objects), → moved; on a terminal colored, and \
            each line cut to its width. --format ndjson prints the changeset encoding of \
            docs/PROTOCOL.md, one stage per line, after a {"schema": …} line when the columns changed. \
            (--format is the output format here; the files' format is --input-format.)

            Exit status, as diff(1): 0 the lists are identical, 1 they differ, 2 trouble (the message \
            on standard error says file:line:column, or that a file was truncated by another program \
            while it was being read).
            """
    )

    @Argument(help: "The old version of the list.")
    var old: String

    @Argument(help: "The new version of the list.")
    var new: String

    @OptionGroup(title: "Reading")
    var input: InputOptions

    @Option(help: ArgumentHelp("What to print.", valueName: "format"))
    var format: DiffOutputFormat = .human

    @Option(help: ArgumentHelp("When to color human output.", valueName: "when"))
    var color: ColorOption = .auto

    /// The exit status of lists that differ.
    static let differentStatus = ExitCode(1)

    func run() async throws {
        let oldOptions = try input.readOptions(forFile: old)
        let newOptions = try input.readOptions(forFile: new)
        // The files are read through mappings: a file truncated meanwhile raises SIGBUS.
        MappedFileFault.installHandler()
        // The two files are read on two threads; the old one's error wins.
        async let oldFile = ListFile(path: old, options: oldOptions, loading: .mapped)
        async let newFile = ListFile(path: new, options: newOptions, loading: .mapped)
        let comparison = try await ListComparison(old: oldFile, new: newFile)
        comparison.old.reportWarnings()
        comparison.new.reportWarnings()
        if !comparison.isIdentical {
            var output = OutputWriter()
            switch format {
            case .human:
                HumanDiffRenderer(
                    old: FileVersion(comparison.old), new: FileVersion(comparison.new), stages: comparison.stages,
                    schemaChange: comparison.schemaChange, style: color.style(isTerminal: output.isTerminal), width: output.terminalWidth
                ).write(to: &output)
            case .ndjson:
                NDJSONDiffRenderer(comparison: comparison).write(to: &output)
            }
            output.flush()
        }
        Self.finish(with: comparison.isIdentical ? .success : Self.differentStatus, keeping: comparison)
    }
}
