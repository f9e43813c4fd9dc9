import CSV
import Foundation
import ListFormats

/// The readers the formats benchmark times side by side, each doing the same
/// job: read every record of a file, take its key (`id`) and a hash of its
/// content, and keep them.
///
/// ListFormats hashes with XXH3 while it reads and keeps 40-byte records over
/// the file's bytes. The baselines build their values (CSV.swift: an array of
/// strings per row; `JSONSerialization`: a dictionary per record), then take
/// the key and combine the fields with Swift's `Hasher` (for JSON, one hash
/// per member, XOR-ed, so that member order does not count).
enum FormatsReader: String, CaseIterable {
    case listFormatsCSV = "listformats-csv"
    case csvSwift = "csv.swift"
    case listFormatsJSON = "listformats-json"
    case jsonSerialization = "jsonserialization"

    var name: String {
        switch self {
        case .listFormatsCSV: "ListFormats CSV"
        case .csvSwift: "CSV.swift 2.5.2"
        case .listFormatsJSON: "ListFormats JSON"
        case .jsonSerialization: "Foundation JSONSerialization"
        }
    }

    /// The file format the reader reads.
    var format: FormatsFileWriter.Format {
        switch self {
        case .listFormatsCSV, .csvSwift: .csv
        case .listFormatsJSON, .jsonSerialization: .json
        }
    }

    /// Whether this is ListSync's reader (rather than a baseline).
    var isListFormats: Bool {
        self == .listFormatsCSV || self == .listFormatsJSON
    }

    private var listReader: ListReader {
        ListReader(options: ReadOptions(format: format == .csv ? .csv(delimiter: .comma) : .json, key: ["id"]))
    }

    /// Loads the file at `path` (not timed) and returns the timed read of it
    /// from memory, which returns the number of records read, or nil when the
    /// file could not be read.
    func prepare(path: String) throws -> () -> Int? {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        if isListFormats {
            let bytes = [UInt8](data)
            let reader = listReader
            return { (try? reader.read(bytes: bytes))?.report.recordCount }
        }
        return { read(data) }
    }

    /// Reads the file at `path`, loading included: what the memory probe
    /// measures.
    func read(file path: String) -> Int? {
        if isListFormats {
            return (try? listReader.read(contentsOfFile: path))?.report.recordCount
        }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return nil }
        return read(data)
    }

    /// A baseline's read of `data`.
    private func read(_ data: Data) -> Int? {
        var keys: [String] = []
        var hashes: [Int] = []
        switch self {
        case .csvSwift:
            guard let reader = try? CSVReader(stream: InputStream(data: data), hasHeaderRow: true) else { return nil }
            while let row = reader.next() {
                guard let key = row.first else { return nil }
                var hasher = Hasher()
                for field in row { hasher.combine(field) }
                keys.append(key)
                hashes.append(hasher.finalize())
            }
            guard reader.error == nil else { return nil }
        case .jsonSerialization:
            guard let records = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] else { return nil }
            for record in records {
                guard let key = record["id"] else { return nil }
                var content = 0
                for (name, value) in record {
                    var hasher = Hasher()
                    hasher.combine(name)
                    if let string = value as? String {
                        hasher.combine(string)
                    } else if let number = value as? NSNumber {
                        hasher.combine(number.stringValue)
                    }
                    content ^= hasher.finalize()
                }
                keys.append(String(describing: key))
                hashes.append(content)
            }
        case .listFormatsCSV, .listFormatsJSON:
            return nil
        }
        return withExtendedLifetime(hashes) { keys.count }
    }
}
