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
