import ArgumentParser

extension LatencyFile {
    /// The format the file is written in (issue 19 measures its goal for a CSV, an NDJSON file
    /// and a JSON array): the same records, fields and key (`sku`) in each.
    enum Format: String, CaseIterable, ExpressibleByArgument {
        /// A header line, then one row a line.
        case csv
        /// One JSON object a line.
        case ndjson
        /// One JSON array of objects, one object a line (`[`, `{…},`, …, `{…}`, `]`), as a
        /// user's export would be.
        case json

        /// The name in labels: `CSV`, `NDJSON`, `JSON array`.
        var label: String {
            switch self {
            case .csv: "CSV"
            case .ndjson: "NDJSON"
            case .json: "JSON array"
            }
        }

        /// The file's extension, which the daemon's watch is configured with too.
        var fileExtension: String { self.rawValue }

        /// The bytes before the first record.
        var prefix: String {
            switch self {
            case .csv: "sku,name,price,category\n"
            case .ndjson: ""
            case .json: "[\n"
            }
        }

        /// The bytes after the last record (a file without records is `prefix` then `suffix`).
        var suffix: String {
            self == .json ? "]\n" : ""
        }

        /// Between two records.
        var separator: String {
            self == .json ? ",\n" : "\n"
        }

        /// After the last record, before `suffix`.
        var terminator: String { "\n" }

        /// One record (no separator) from its CSV row `sku,name,price,category` (no field of
        /// ``LatencyFile/row(_:version:layout:)`` holds a comma, a quote or a backslash); the
        /// price is a JSON number, as an export writes it.
        func record(csvRow row: String) -> String {
            guard self != .csv else { return row }
            let fields = row.split(separator: ",", omittingEmptySubsequences: false)
            return "{\"sku\":\"\(fields[0])\",\"name\":\"\(fields[1])\",\"price\":\(fields[2]),\"category\":\"\(fields[3])\"}"
        }
    }
}
