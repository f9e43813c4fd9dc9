import ArgumentParser
import ListFormats

/// How to read list files: the options every command that reads files
/// shares (`parse`, `diff`), turned into ListFormats' ``ReadOptions``.
struct InputOptions: ParsableArguments {
    @Option(
        name: .customLong("input-format"),
        help: ArgumentHelp(
            "The format of the input files. Default: from the extension (.csv, .tsv/.tab, .json, .ndjson/.jsonl).",
            valueName: "format"))
    var inputFormat: FileFormat?

    @Option(help: ArgumentHelp(
            "The field delimiter of CSV input, by name (comma, semicolon, tab, pipe) or as the character itself (',' ';' '|', a tab or '\\t'). Default: comma, tab for tsv.",
            valueName: "delimiter"))
    var delimiter: DelimiterOption?

    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "A field that identifies a record: a CSV column, a JSON member or a JSON Pointer (/a/b). Repeat for a composite key. "
                + "Default: the whole record is its identity.",
            valueName: "field"))
    var key: [String] = []

    @Option(
        name: .customLong("section-by"),
        help: ArgumentHelp("A field whose value groups records into sections, in order of first appearance.", valueName: "field"))
    var sectionBy: String?

    @Option(help: ArgumentHelp("A field left out of the list: not compared, not output (e.g. updated_at). Repeatable.", valueName: "field"))
    var ignore: [String] = []

    @Option(
        name: .customLong("ragged-rows"),
        help: ArgumentHelp("CSV rows with a different field count than the header: fail, pad short rows, or truncate long ones.", valueName: "policy"))
    var raggedRows: RaggedRowOption = .error

    /// The read options for the file at `path`.
    func readOptions(forFile path: String) throws(CommandFailure) -> ReadOptions {
        guard var format = inputFormat?.listFormat ?? ListFormat(path: path) else {
            throw .unknownFormat(path: path)
        }
        if let delimiter {
            guard case .csv = format else { throw .invalidOptions("--delimiter applies to csv and tsv input only") }
            format = .csv(delimiter: delimiter.delimiter)
        }
        return ReadOptions(format: format, key: key, sectionBy: sectionBy, ignore: ignore, raggedRows: raggedRows.policy)
    }
}
