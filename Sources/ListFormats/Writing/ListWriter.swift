/// Writes lists back to files: CSV (header order kept, RFC 4180 quoting only
/// where needed), JSON (an array, or an object of arrays when sectioned) and
/// NDJSON. Reading what a writer wrote gives the same values back.
///
///     let bytes = ListWriter(format: .json).write(list.document)
public struct ListWriter: Sendable {
    /// The format to write.
    public var format: ListFormat

    /// The CSV header, in order; `nil` takes the member names of the records
    /// in order of first appearance. Ignored by JSON and NDJSON.
    public var columns: [String]?

    /// The line ending of CSV rows and of JSON and NDJSON lines.
    public var lineEnding: LineEnding

    /// The CSV column that keeps each record's section when the sections are not a field of the
    /// records (a JSON object of arrays): written first, so that reading the CSV with this column
    /// as `section_by` gives the same sections back. `nil` drops such sections. Ignored by JSON
    /// and NDJSON, which keep sections in their own way, and when the records carry their
    /// sections (see ``ListDocument/sectionField``).
    public var sectionColumn: String?

    /// A line ending.
    public enum LineEnding: Hashable, Sendable {
        /// `\n`
        case lf
        /// `\r\n`
        case crlf
    }

    /// Creates a writer.
    public init(format: ListFormat, columns: [String]? = nil, lineEnding: LineEnding = .lf, sectionColumn: String? = "section") {
        self.format = format
        self.columns = columns
        self.lineEnding = lineEnding
        self.sectionColumn = sectionColumn
    }

    /// The column ``write(_:)-(ListDocument)`` adds to keep `document`'s sections in CSV: the
    /// ``sectionColumn`` when the document is sectioned, the format is CSV and no field of the
    /// records names their section; else `nil`. O(records × columns) at worst.
    public func addedSectionColumn(for document: ListDocument) -> String? {
        guard case .csv = self.format, let name = self.sectionColumn, case .sections = document, document.sectionField == nil else { return nil }
        return name
    }

    /// The bytes of `document` in the writer's format. O(output size).
    ///
    /// - CSV: a header row, then one row per record (sections one after the
    ///   other); a field holds its member's ``ListValue/text``, a missing
    ///   member is an empty field, and a record that is not an object fills
    ///   the first column. Sections that are no field of the records get a
    ///   first column of their own (``addedSectionColumn(for:)``).
    /// - JSON: an array of records, one per line; a sectioned document is an
    ///   object whose member names are the sections' ``SectionModel/name``.
    /// - NDJSON: one compact record per line (sections one after the other).
    public func write(_ document: ListDocument) -> [UInt8] {
        var output = ByteScratch(capacity: 1 << 16)
        var columns = self.columns ?? []
        if case .csv = self.format, self.columns == nil { columns = document.memberNames }
        let sectioned: Bool
        if case .sections = document { sectioned = true } else { sectioned = false }
        var writer = ListStreamWriter(
            format: self.format, columns: columns, sectioned: sectioned, sectionColumn: self.addedSectionColumn(for: document),
            lineEnding: self.lineEnding)
        writer.begin(to: &output)
        switch document {
        case .records(let records):
            for record in records { writer.append(record, to: &output) }
        case .sections(let sections):
            for section in sections {
                writer.beginSection(section.value, to: &output)
                for record in section.records { writer.append(record, to: &output) }
            }
        }
        writer.finish(to: &output)
        return output.array()
    }

    /// The bytes of a parsed list in the writer's format; CSV columns default
    /// to the list's schema.
    public func write(_ list: ParsedList) -> [UInt8] {
        var writer = self
        if writer.columns == nil, !list.schema.columns.isEmpty { writer.columns = list.schema.columns }
        return writer.write(list.document)
    }
}
