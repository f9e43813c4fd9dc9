/// Writes a list record by record, as it arrives, in exactly the bytes ``ListWriter`` writes for
/// the whole list: what lets a client write a snapshot chunk by chunk to a file instead of
/// assembling the list first (and what ``ListWriter`` itself writes with, so the two cannot
/// differ).
///
/// The caller says up front what ``ListWriter`` would find from the whole list: the CSV columns,
/// whether the list is sectioned, and the CSV column that keeps the sections (``ListWriter/addedSectionColumn(for:)``).
/// Then it calls ``beginSection(_:)`` before each section's records (a sectioned list only;
/// a section continued in the next chunk is not begun again), ``append(_:)`` with records, and
/// ``finish()`` once. Each call returns the bytes it adds; nothing is held between calls but a
/// few flags.
///
/// ```swift
/// var writer = ListStreamWriter(format: .csv(.comma), columns: schema.columns, sectioned: false)
/// write(writer.begin())
/// for chunk in chunks { write(writer.append(chunk.records)) }
/// write(writer.finish())
/// ```
public struct ListStreamWriter: Sendable {
    /// The format written.
    public let format: ListFormat
    /// The CSV header (without the section column).
    public let columns: [String]
    /// Whether the list is sectioned: JSON writes an object of arrays.
    public let sectioned: Bool
    /// The CSV column written first with each record's section; `nil`: none.
    public let sectionColumn: String?
    /// The line ending.
    public let lineEnding: ListWriter.LineEnding

    /// Whether no two columns have the same name (a record's member then fills exactly its own).
    private let columnsAreUnique: Bool

    /// Where the writer is.
    private enum Place: Sendable {
        /// Nothing written yet.
        case start
        /// Writing records; `records` in the current JSON array (or section).
        case records(sections: Int, records: Int)
        /// ``finish()`` was called.
        case finished
    }

    private var place = Place.start
    /// The current section's name (its ``ListValue/text``), for the CSV section column.
    private var sectionName = ""
    /// Whether any byte was written: a U+FEFF starting the file is quoted.
    private var wroteAny = false

    /// A writer of a list with these `columns` (CSV; JSON and NDJSON ignore them), `sectioned`
    /// or not, keeping sections in `sectionColumn` (CSV).
    public init(
        format: ListFormat, columns: [String], sectioned: Bool, sectionColumn: String? = nil, lineEnding: ListWriter.LineEnding = .lf
    ) {
        self.format = format
        self.columns = columns
        self.columnsAreUnique = Set(columns).count == columns.count
        self.sectioned = sectioned
        self.sectionColumn = sectionColumn
        self.lineEnding = lineEnding
    }

    /// The bytes before the first record: the CSV header, JSON's opening bracket.
    public mutating func begin() -> [UInt8] {
        self.bytes { writer, output in writer.begin(to: &output) }
    }

    /// The bytes that start a new section named `value` (JSON: its member name).
    public mutating func beginSection(_ value: ListValue) -> [UInt8] {
        self.bytes { writer, output in writer.beginSection(value, to: &output) }
    }

    /// The bytes of `records`, the next records of the current section.
    public mutating func append(_ records: some Sequence<ListValue>) -> [UInt8] {
        self.bytes { writer, output in
            for record in records { writer.append(record, to: &output) }
        }
    }

    /// The bytes after the last record.
    public mutating func finish() -> [UInt8] {
        self.bytes { writer, output in writer.finish(to: &output) }
    }

    private mutating func bytes(_ body: (inout Self, inout ByteScratch) -> Void) -> [UInt8] {
        var output = ByteScratch(capacity: 1 << 12)
        body(&self, &output)
        return output.array()
    }

    // MARK: Writing into a buffer (also ListWriter's)

    mutating func begin(to output: inout ByteScratch) {
        guard case .start = self.place else { return }
        self.place = .records(sections: 0, records: 0)
        switch self.format {
        case .csv(let delimiter):
            guard !self.columns.isEmpty else { return }
            self.writeCSVRow((self.sectionColumn.map { [$0] } ?? []) + self.columns, delimiter: delimiter.rawValue, to: &output)
        case .json:
            // A sectioned object's line end waits for its first section: `{}` has none.
            output.append(self.sectioned ? ASCII.openBrace : ASCII.openBracket)
        case .ndjson:
            break
        }
    }

    mutating func beginSection(_ value: ListValue, to output: inout ByteScratch) {
        self.begin(to: &output)
        guard case .records(let sections, let records) = self.place else { return }
        self.sectionName = value.text
        self.place = .records(sections: sections + 1, records: 0)
        guard case .json = self.format, self.sectioned else { return }
        if sections == 0 {
            self.appendLineEnding(to: &output)
        } else {
            self.closeJSONArray(records: records, to: &output)
            output.append(ASCII.comma)
            self.appendLineEnding(to: &output)
        }
        JSONValueEncoder.appendString(value.text, to: &output)
        output.append(ASCII.colon)
        output.append(ASCII.space)
        output.append(ASCII.openBracket)
        self.wroteAny = true
    }

    mutating func append(_ record: ListValue, to output: inout ByteScratch) {
        self.begin(to: &output)
        guard case .records(let sections, let records) = self.place else { return }
        self.place = .records(sections: sections, records: records + 1)
        switch self.format {
        case .csv(let delimiter):
            guard !self.columns.isEmpty else { return }
            var fields: [String]
            if case .object(let members) = record, self.columnsAreUnique, members.count == self.columns.count,
                members.indices.allSatisfy({ members[$0].name == self.columns[$0] })
            {
                // The common case, a record read from a CSV with this header: its members are
                // the columns, in order.
                fields = members.map(\.value.text)
            } else if case .object(let members) = record {
                var valueOfMember: [String: String] = [:]
                for member in members where valueOfMember[member.name] == nil {
                    valueOfMember[member.name] = member.value.text
                }
                fields = self.columns.map { valueOfMember[$0] ?? "" }
            } else {
                fields = [record.text] + Array(repeating: "", count: self.columns.count - 1)
            }
            if self.sectionColumn != nil { fields.insert(self.sectionName, at: 0) }
            self.writeCSVRow(fields, delimiter: delimiter.rawValue, to: &output)
        case .json:
            if records > 0 { output.append(ASCII.comma) }
            self.appendLineEnding(to: &output)
            JSONValueEncoder.append(record, to: &output)
        case .ndjson:
            JSONValueEncoder.append(record, to: &output)
            self.appendLineEnding(to: &output)
        }
        self.wroteAny = true
    }

    mutating func finish(to output: inout ByteScratch) {
        self.begin(to: &output)
        guard case .records(let sections, let records) = self.place else { return }
        self.place = .finished
        guard case .json = self.format else { return }
        if !self.sectioned {
            self.closeJSONArray(records: records, to: &output)
        } else if sections > 0 {
            self.closeJSONArray(records: records, to: &output)
            self.appendLineEnding(to: &output)
            output.append(ASCII.closeBrace)
        } else {
            output.append(ASCII.closeBrace)
        }
        self.appendLineEnding(to: &output)
        self.wroteAny = true
    }

    /// `]` after a JSON array's `records` (one per line).
    private func closeJSONArray(records: Int, to output: inout ByteScratch) {
        if records > 0 { self.appendLineEnding(to: &output) }
        output.append(ASCII.closeBracket)
    }

    private func appendLineEnding(to output: inout ByteScratch) {
        if self.lineEnding == .crlf { output.append(ASCII.carriageReturn) }
        output.append(ASCII.lineFeed)
    }

    private mutating func writeCSVRow(_ fields: [String], delimiter: UInt8, to output: inout ByteScratch) {
        for (index, field) in fields.enumerated() {
            if index > 0 { output.append(delimiter) }
            var field = field
            let atStart = !self.wroteAny && output.count == 0
            field.withUTF8 { bytes in
                // A lone empty field would read back as a blank line, and a U+FEFF at the very
                // start of the file as a byte-order mark.
                let forceQuotes = (fields.count == 1 && bytes.isEmpty) || (atStart && UTF8Validation.hasByteOrderMark(bytes))
                CSVFieldEncoding.append(UnsafeRawBufferPointer(bytes), delimiter: delimiter, forceQuotes: forceQuotes, to: &output)
            }
        }
        self.appendLineEnding(to: &output)
        self.wroteAny = true
    }
}
