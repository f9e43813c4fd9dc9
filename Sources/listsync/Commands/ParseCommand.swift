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
            of strings in header order. Numbers keep their literal text. CSV output of a list whose \
            sections are no field of its records (a JSON object of arrays) keeps each record's \
            section in a first column, --section-column (default: section), so that `parse out.csv \
            --section-by section` gives the same sections back.

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

    @OptionGroup(title: "Writing")
    var sections: SectionColumnOption

    func run() throws {
        let file = try ListFile(path: file, options: input.readOptions(forFile: file))
        file.reportWarnings()
        let columns = file.list.schema.columns
        let bytes: [UInt8]
        do {
            bytes = try sections.write(file.list.document, format: outputFormat.listFormat, columns: columns.isEmpty ? nil : columns)
        } catch {
            throw CommandFailure.invalidOptions("\(error)")
        }
        var output = OutputWriter()
        output.write(bytes: bytes)
        output.flush()
        Self.finish(with: .success, keeping: file)
    }
}
