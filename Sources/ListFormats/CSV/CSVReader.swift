/// Reads a CSV (or TSV) file into a ``ParsedList``.
///
/// One pass over the bytes: each row is split into field ranges, its key and
/// section are taken from their columns, and its content is hashed — the raw
/// row bytes when the row has no quotes and no ignored columns (the common
/// case, and already canonical), otherwise the row re-encoded with minimal
/// quoting. No value is built.
struct CSVReader {
    let options: ReadOptions
    let delimiter: UInt8

    /// Reads the bytes of `bytes`, which `buffer` points to (checked UTF-8);
    /// `report` has what the check found.
    func read(
        _ buffer: UnsafeBufferPointer<UInt8>, keeping bytes: [UInt8], report: ReadReport
    ) throws(ListFormatError) -> ParsedList {
        var report = report
        guard let base = buffer.baseAddress else {
            throw .missingHeader(at: SourcePosition(line: 1, column: 1, byteOffset: 0))
        }
        let scanner = CSVScanner(base: base, count: buffer.count, delimiter: delimiter)
        var fields = ScratchArray<CSVField>()

        var index = scanner.skipBlankLines(from: report.hadByteOrderMark ? 3 : 0, skipped: &report.blankLineCount)
        guard index < buffer.count else { throw .missingHeader(at: scanner.position(of: index)) }
        let headerStart = index
        let headerRow = try scanner.scanRow(at: index, into: &fields)
        index = headerRow.next
        let columns = try CSVColumns(
            header: try header(of: fields, scanner: scanner), options: options,
            headerPosition: { scanner.position(of: headerStart) })

        let storage = ListStorage(
            source: bytes, encoding: .csv(CSVLayout(delimiter: delimiter, header: columns.header)),
            keyFieldCount: columns.key.count)
        var assembler = ListAssembler(
            storage: storage, source: buffer, isSectioned: columns.section != nil,
            estimatedCount: ListAssembler.estimatedCount(of: (ASCII.lineFeed, ASCII.carriageReturn), in: buffer, from: index))
        var scratch = ByteScratch()
        var fieldValue = ByteScratch()
        while true {
            index = scanner.skipBlankLines(from: index, skipped: &report.blankLineCount)
            guard index < buffer.count else { break }
            let row = try scanner.scanRow(at: index, into: &fields)
            index = row.next

            if fields.count != columns.count {
                try checkRaggedRow(row, fields: fields, columns: columns, scanner: scanner, report: &report)
            }
            let available = min(fields.count, columns.count)

            var section = 0
            if let column = columns.section {
                guard column < available else {
                    throw .missingField(columns.sectionName ?? "", at: scanner.position(of: row.start))
                }
                let field = fields[column]
                let mark = scratch.count
                scanner.appendValue(of: field, to: &scratch)
                section = assembler.section(forCanonical: scratch.bytes(from: mark)) {
                    .string(scanner.string(of: field))
                }.index
                scratch.truncate(to: mark)
            }

            let content: ContentHash
            if !row.hasQuote, !columns.hasIgnored, fields.count == columns.count {
                content = StableHash.hash128(base + row.start, count: row.end - row.start)
            } else {
                var isFirst = true
                for column in 0..<columns.count where !columns.ignored[column] {
                    if !isFirst { scratch.append(delimiter) }
                    isFirst = false
                    guard column < available else { continue }
                    let field = fields[column]
                    if !row.hasQuote {
                        scratch.append(scanner.rawBytes(of: field))
                    } else if field.quoting == .quotedWithEscapes {
                        fieldValue.truncate(to: 0)
                        scanner.appendValue(of: field, to: &fieldValue)
                        CSVFieldEncoding.append(fieldValue.bytes(), delimiter: delimiter, to: &scratch)
                    } else {
                        CSVFieldEncoding.append(scanner.rawBytes(of: field), delimiter: delimiter, to: &scratch)
                    }
                }
                content = scratch.hash128(from: 0)
                scratch.truncate(to: 0)
            }

            switch columns.key.count {
            case 0:
                assembler.append(start: row.start, end: row.end, key: .content, content: content, section: section)
            case 1 where columns.key[0] < available && fields[columns.key[0]].quoting != .quotedWithEscapes:
                let field = fields[columns.key[0]]
                assembler.append(
                    start: row.start, end: row.end, key: .source(start: field.start, end: field.end),
                    content: content, section: section)
            default:
                for (part, column) in columns.key.enumerated() {
                    guard column < available else {
                        throw .missingField(columns.keyNames[part], at: scanner.position(of: row.start))
                    }
                    let prefix = columns.key.count > 1 ? KeyCanonicalForm.beginField(in: &scratch) : nil
                    scanner.appendValue(of: fields[column], to: &scratch)
                    if let prefix { KeyCanonicalForm.endField(startedAt: prefix, in: &scratch) }
                }
                assembler.append(
                    start: row.start, end: row.end, key: .bytes(scratch.bytes()), content: content, section: section)
                scratch.truncate(to: 0)
            }
        }
        return assembler.finish(schema: ListSchema(columns: columns.header), format: options.format, report: report)
    }

    /// The header's names; empty and repeated names are errors.
    private func header(of fields: borrowing ScratchArray<CSVField>, scanner: CSVScanner) throws(ListFormatError) -> [String] {
        var names: [String] = []
        var columnOfName: [String: Int] = [:]
        for column in 0..<fields.count {
            let field = fields[column]
            let name = scanner.string(of: field)
            let position = { scanner.position(of: scanner.startOfField(field)) }
            guard !name.isEmpty else { throw .emptyHeaderName(column: column + 1, at: position()) }
            if let first = columnOfName[name] {
                throw .duplicateHeaderName(name, column: column + 1, firstColumn: first + 1, at: position())
            }
            columnOfName[name] = column
            names.append(name)
        }
        return names
    }

    /// Applies the ragged-row policy to a row whose field count differs from
    /// the header's.
    private func checkRaggedRow(
        _ row: CSVScanner.Row, fields: borrowing ScratchArray<CSVField>, columns: CSVColumns, scanner: CSVScanner,
        report: inout ReadReport
    ) throws(ListFormatError) {
        let isShort = fields.count < columns.count
        switch (options.raggedRows, isShort) {
        case (.pad, true):
            report.paddedRowCount += 1
        case (.truncate, false):
            report.truncatedRowCount += 1
        default:
            let offset = isShort ? row.end : scanner.startOfField(fields[columns.count])
            throw .raggedRow(expected: columns.count, found: fields.count, at: scanner.position(of: offset))
        }
    }
}
