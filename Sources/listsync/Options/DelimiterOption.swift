import ArgumentParser
import ListFormats

/// A CSV field delimiter as the command line spells it: its name (`comma`, `semicolon`, `tab`,
/// `pipe`) or the character itself (`,` `;` a tab or `\t`, `|`), as the daemon's `delimiter` key.
struct DelimiterOption: ExpressibleByArgument {
    let delimiter: CSVDelimiter

    init?(argument: String) {
        guard let delimiter = CSVDelimiter(spelling: argument) else { return nil }
        self.delimiter = delimiter
    }

    static var allValueStrings: [String] {
        CSVDelimiter.allCases.map(\.name)
    }
}
