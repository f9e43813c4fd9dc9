import ArgumentParser
import ListFormats

/// A file format as the command line names it, for input and output alike.
enum FileFormat: String, CaseIterable, ExpressibleByArgument {
    case csv
    case tsv
    case json
    case ndjson

    /// The format ListFormats reads or writes.
    var listFormat: ListFormat {
        switch self {
        case .csv: .csv(delimiter: .comma)
        case .tsv: .csv(delimiter: .tab)
        case .json: .json
        case .ndjson: .ndjson
        }
    }
}

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

/// ``RaggedRowPolicy`` as the command line names it.
enum RaggedRowOption: String, CaseIterable, ExpressibleByArgument {
    case error
    case pad
    case truncate

    var policy: RaggedRowPolicy {
        switch self {
        case .error: .error
        case .pad: .pad
        case .truncate: .truncate
        }
    }
}
