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
        switch format {
        case .csv(let delimiter):
            writeCSV(document, delimiter: delimiter.rawValue, to: &output)
        case .json:
            writeJSON(document, to: &output)
        case .ndjson:
            for record in document.allRecords {
                JSONValueEncoder.append(record, to: &output)
                appendLineEnding(to: &output)
            }
        }
        return output.array()
    }

    /// The bytes of a parsed list in the writer's format; CSV columns default
    /// to the list's schema.
    public func write(_ list: ParsedList) -> [UInt8] {
        var writer = self
        if writer.columns == nil, !list.schema.columns.isEmpty { writer.columns = list.schema.columns }
        return writer.write(list.document)
    }

    private func appendLineEnding(to output: inout ByteScratch) {
        if lineEnding == .crlf { output.append(ASCII.carriageReturn) }
        output.append(ASCII.lineFeed)
    }

    private func writeCSV(_ document: ListDocument, delimiter: UInt8, to output: inout ByteScratch) {
        let columns = self.columns ?? document.memberNames
        guard !columns.isEmpty else { return }
        let sectionColumn = self.addedSectionColumn(for: document)
        writeCSVRow((sectionColumn.map { [$0] } ?? []) + columns, delimiter: delimiter, to: &output)
        let sectionNames: [String] =
            if sectionColumn != nil, case .sections(let sections) = document {
                sections.flatMap { section in repeatElement(section.value.text, count: section.records.count) }
            } else {
                []
            }
        for (index, record) in document.allRecords.enumerated() {
            var fields: [String]
            if case .object(let members) = record {
                var valueOfMember: [String: String] = [:]
                for member in members where valueOfMember[member.name] == nil {
                    valueOfMember[member.name] = member.value.text
                }
                fields = columns.map { valueOfMember[$0] ?? "" }
            } else {
                fields = [record.text] + Array(repeating: "", count: columns.count - 1)
            }
            if sectionColumn != nil { fields.insert(sectionNames[index], at: 0) }
            writeCSVRow(fields, delimiter: delimiter, to: &output)
        }
    }

    private func writeCSVRow(_ fields: [String], delimiter: UInt8, to output: inout ByteScratch) {
        for (index, field) in fields.enumerated() {
            if index > 0 { output.append(delimiter) }
            var field = field
            field.withUTF8 { bytes in
                // A lone empty field would read back as a blank line, and a U+FEFF at the very
                // start of the file as a byte-order mark.
                let forceQuotes =
                    (fields.count == 1 && bytes.isEmpty) || (output.count == 0 && UTF8Validation.hasByteOrderMark(bytes))
                CSVFieldEncoding.append(
                    UnsafeRawBufferPointer(bytes), delimiter: delimiter, forceQuotes: forceQuotes, to: &output)
            }
        }
        appendLineEnding(to: &output)
    }

    private func writeJSON(_ document: ListDocument, to output: inout ByteScratch) {
        switch document {
        case .records(let records):
            writeJSONArray(records, to: &output)
        case .sections(let sections):
            guard !sections.isEmpty else {
                output.append(ASCII.openBrace)
                output.append(ASCII.closeBrace)
                break
            }
            output.append(ASCII.openBrace)
            appendLineEnding(to: &output)
            for (index, section) in sections.enumerated() {
                JSONValueEncoder.appendString(section.value.text, to: &output)
                output.append(ASCII.colon)
                output.append(ASCII.space)
                writeJSONArray(section.records, to: &output)
                if index + 1 < sections.count { output.append(ASCII.comma) }
                appendLineEnding(to: &output)
            }
            output.append(ASCII.closeBrace)
        }
        appendLineEnding(to: &output)
    }

    /// `[`, one record per line, `]` (or `[]`).
    private func writeJSONArray(_ records: [ListValue], to output: inout ByteScratch) {
        output.append(ASCII.openBracket)
        for (index, record) in records.enumerated() {
            appendLineEnding(to: &output)
            JSONValueEncoder.append(record, to: &output)
            if index + 1 < records.count { output.append(ASCII.comma) }
        }
        if !records.isEmpty { appendLineEnding(to: &output) }
        output.append(ASCII.closeBracket)
    }
}
