import ListFormats

extension WatchConfiguration {
    /// How the reader reads this watch's file.
    var readOptions: ReadOptions {
        let format: ListFormat
        switch self.format {
        case .csv, .tsv: format = .csv(delimiter: self.delimiter ?? .comma)
        case .json: format = .json
        case .ndjson: format = .ndjson
        }
        return ReadOptions(format: format, key: self.key, sectionBy: self.sectionBy, ignore: self.ignore, raggedRows: self.raggedRows)
    }
}
