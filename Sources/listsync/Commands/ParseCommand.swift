import ArgumentParser
import ListFormats

/// `listsync parse FILE`: prints a list exactly as ListSync reads it, in any
/// of the formats it writes — a converter too.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Print a list file as ListSync reads it (and convert it).",
        discussion: """
            JSON output is an array of records, or an object of arrays when the list is sectioned \
            (by --section-by, or a JSON file that is an object of arrays). CSV records become objects \
            of strings in header order. Numbers keep their literal text.

            Exit status: 0 when the file was read, 2 when it could not be (the message on standard \
            error says file:line:column).
            """
    )

    @Argument(help: "The list file to read.")
    var file: String

    @OptionGroup(title: "Reading")
    var input: InputOptions

    @Option(
        name: .customLong("output-format"),
        help: ArgumentHelp("The format to print.", valueName: "format"))
    var outputFormat: FileFormat = .json

    func run() throws {
        let file = try ListFile(path: file, options: input.readOptions(forFile: file))
        file.reportWarnings()
        var output = OutputWriter()
        output.write(bytes: ListWriter(format: outputFormat.listFormat).write(file.list))
        output.flush()
        Self.finish(with: .success, keeping: file)
    }
}
