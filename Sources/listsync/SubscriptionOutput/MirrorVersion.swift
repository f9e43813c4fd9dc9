import ListDiff
import ListFormats
import ListSyncClient
import ListSyncProtocol

/// A mirrored list at one version, as a ``ListVersion``: records named by their key values, read
/// from the records themselves with the watch's key fields (the daemon's `list` tells them), as
/// `diff` names them — a CSV field as it is, a JSON value as JSON text. Without a key, a record
/// is named by its position in its section.
struct MirrorVersion: ListVersion {
    let sections: [MirroredSection]
    let naming: Naming
    let sectionCounts: [Int]

    /// The mirror's `sections`, whose records are named by `naming`.
    init(sections: [MirroredSection], naming: Naming) {
        self.sections = sections
        self.naming = naming
        self.sectionCounts = sections.map(\.records.count)
    }

    /// How a watch's records are named: its key fields and whether its values are CSV fields.
    struct Naming {
        /// The key fields; empty when records are identified by their content.
        let key: [FieldPath]
        /// Whether key values are CSV fields (shown as they are) rather than JSON values.
        let isCSV: Bool

        /// No key: records are named by position.
        static let positional = Naming(key: [], isCSV: false)

        /// How the records of the watch `summary` describes are named: by the key fields it
        /// reports; by position when it has none, or there is no summary.
        init(of summary: WatchSummary?) {
            guard let summary else {
                self = .positional
                return
            }
            self.init(key: summary.key.compactMap { try? FieldPath(parsing: $0) }, isCSV: summary.format == "csv" || summary.format == "tsv")
        }

        /// A naming by `key`, whose values are CSV fields when `isCSV`.
        init(key: [FieldPath], isCSV: Bool) {
            self.key = key
            self.isCSV = isCSV
        }
    }

    func sectionModel(_ section: Int) -> ListValue { self.sections[section].model.model }

    func value(at path: ElementPath) -> ListValue { self.sections[path.section].records[path.element].value }

    func name(at path: ElementPath) -> String {
        guard !self.naming.key.isEmpty else { return self.place(at: path) }
        return self.keyComponents(of: self.value(at: path)).joined(separator: ", ")
    }

    func place(at path: ElementPath) -> String { "position \(path.element + 1)" }

    /// What makes two records the same record, as the daemon decides it: equal keys, or without
    /// a key equal contents.
    enum Identifier: Hashable {
        case key([String])
        case content(ContentHash)
    }

    var identifiers: [Identifier] {
        self.sections.flatMap { section in
            section.records.map { record in
                self.naming.key.isEmpty ? .content(record.hash) : .key(self.keyComponents(of: record.value))
            }
        }
    }

    private func keyComponents(of value: ListValue) -> [String] {
        self.naming.key.map { field in
            guard let component = value[member: field.spelling] ?? field.value(in: value) else { return "" }
            return self.naming.isCSV ? component.text : component.jsonText
        }
    }
}
