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

/// A CSV field delimiter as the command line names it.
enum DelimiterOption: String, CaseIterable, ExpressibleByArgument {
    case comma
    case semicolon
    case tab
    case pipe

    var delimiter: CSVDelimiter {
        switch self {
        case .comma: .comma
        case .semicolon: .semicolon
        case .tab: .tab
        case .pipe: .pipe
        }
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
