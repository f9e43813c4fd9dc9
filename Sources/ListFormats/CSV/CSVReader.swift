import CListFormatsScan

/// Reads a CSV (or TSV) file into a ``ParsedList``.
///
/// One pass over the bytes: each row is split into field ranges, its key and
/// section are taken from their columns, and its content is hashed — the raw
/// row bytes when they are canonical (no quotes, or only quotes that are
/// needed) and no column is ignored, the common case; otherwise the row
/// re-encoded with minimal quoting — and sealed with the published header
/// (``CSVLayout/contentHash(ofRow:)``): a record's content includes its
/// field names. A record without a key is identified by its row's hash
/// alone, so a renamed column updates records rather than replacing them.
/// No value is built.
struct CSVReader {
    let options: ReadOptions
    let delimiter: UInt8

    /// The bytes that end a row, counted to estimate the number of records
    /// (``ListAssembler/estimatedCount(of:in:from:)``).
    static let recordMarks = (ASCII.lineFeed, ASCII.carriageReturn)

    /// Reads the bytes of `bytes`, which `buffer` points to; `report` has
    /// what ``ListReader`` found (the byte-order mark). The scanner checks
    /// that the rows are well-formed UTF-8 as it goes.
    func read(
        _ buffer: UnsafeBufferPointer<UInt8>, keeping bytes: ListSource, report: ReadReport
    ) throws(ListFormatError) -> ParsedList {
        var report = report
        guard let base = buffer.baseAddress else {
            throw .missingHeader(at: SourcePosition(line: 1, column: 1, byteOffset: 0))
        }
        var scanner = CSVScanner(base: base, count: buffer.count, delimiter: delimiter)
        let header = try readHeader(scanner: &scanner, hadByteOrderMark: report.hadByteOrderMark)
        report.blankLineCount += header.blankLineCount
        let columns = header.columns

        let layout = columns.layout(delimiter: delimiter)
        let storage = ListStorage(source: bytes, encoding: .csv(layout))
        let estimatedCount = ListAssembler.estimatedCount(of: Self.recordMarks, in: buffer, from: header.dataStart)
        var assembler = ListAssembler(
            storage: storage, source: buffer, isSectioned: columns.section != nil, estimatedCount: estimatedCount)
        var start = header.dataStart
        if columns.section == nil, SplitRead.isWorthIt(buffer.count - start) {
            let split = Int(listsync_csv_split_point(base, Int64(buffer.count), Int64(start), delimiter))
            if split > start {
                start = try readRowsInHalves(
                    from: start, split: split, scanner: &scanner, columns: columns, estimatedCount: estimatedCount,
                    into: &assembler, report: &report)
            }
        }
        if start < buffer.count {
            try readRows(from: start, until: buffer.count, scanner: &scanner, columns: columns, into: &assembler, report: &report)
        }
        return assembler.finish(schema: columns.published, format: options.format, report: report)
    }

    /// Reads the rows from `start` in two halves at once (``SplitRead``), the
    /// second one from `split`; returns where reading must go on: the end of
    /// the file when the first half stopped right at `split` and the second
    /// half's rows were added, else where the first half stopped.
    private func readRowsInHalves(
        from start: Int, split: Int, scanner: inout CSVScanner, columns: CSVColumns, estimatedCount: Int,
        into assembler: inout ListAssembler, report: inout ReadReport
    ) throws(ListFormatError) -> Int {
        let count = scanner.count
        let base = scanner.base
        var second = ListAssembler(secondHalfOf: assembler.storage, source: assembler.source, estimatedCount: estimatedCount / 2)
        var secondReport = ReadReport()
        var firstResult: Result<Int, ListFormatError> = .success(start)
        var secondError: ListFormatError?
        SplitRead.both(
            {
                firstResult = Result { () throws(ListFormatError) in
                    try readRows(from: start, until: split, scanner: &scanner, columns: columns, into: &assembler, report: &report)
                }
            },
            {
                var scanner = CSVScanner(base: base, count: count, delimiter: delimiter)
                do throws(ListFormatError) {
                    try readRows(
                        from: split, until: count, scanner: &scanner, columns: columns, into: &second, report: &secondReport)
                } catch {
                    secondError = error
                }
            })
        let stop = try firstResult.get()
        guard stop == split else { return stop }
        if let secondError { throw secondError }
        assembler.append(second)
        report.add(secondReport)
        return count
    }

    /// Reads the rows from `start` (where a row or blank lines start) into
    /// `assembler`, up to the first row that starts at or after `limit`;
    /// returns where that row starts (or the end of the file).
    @discardableResult
    func readRows(
        from start: Int, until limit: Int, scanner: inout CSVScanner, columns: CSVColumns,
        into assembler: inout ListAssembler, report: inout ReadReport
    ) throws(ListFormatError) -> Int {
        let layout = columns.layout(delimiter: delimiter)
        var scratch = ByteScratch()
        var fieldValue = ByteScratch()
        var index = start
        let identity: Int32 =
            switch (columns.section, columns.key.count) {
            case (nil, 0): Int32(LISTSYNC_IDENTITY_CONTENT)
            case (nil, 1): Int32(LISTSYNC_IDENTITY_KEY)
            default: Int32(LISTSYNC_IDENTITY_OTHER)
            }
        while true {
            let batch = scanner.scan(from: index, until: limit)
            report.blankLineCount += batch.blankLineCount
            scanner.hashRows(
                fieldCount: columns.count, keyColumn: columns.key.count == 1 ? columns.key[0] : nil,
                hashesContent: !columns.hasIgnored, headerSeed: columns.headerSeed, identity: identity)
            var rowIndex = 0
            while rowIndex < batch.rowCount {
                // The rows whose records the scanner made: added at once.
                var readyEnd = rowIndex
                while readyEnd < batch.rowCount, scanner.hashes(ofRow: readyEnd).is_ready { readyEnd += 1 }
                if readyEnd > rowIndex {
                    assembler.append(ready: scanner.readyRecords(rowIndex..<readyEnd))
                    rowIndex = readyEnd
                    continue
                }
                defer { rowIndex += 1 }
                let row = scanner.row(rowIndex)
                let hashes = scanner.hashes(ofRow: rowIndex)
                if row.fieldCount != columns.count {
                    try checkRaggedRow(row, columns: columns, scanner: scanner, report: &report)
                }
                let available = min(row.fieldCount, columns.count)

                var section = 0
                if let column = columns.section {
                    guard column < available else {
                        throw .missingField(columns.sectionName ?? "", at: scanner.position(of: row.start))
                    }
                    let field = scanner.field(column, of: row)
                    let mark = scratch.count
                    scanner.appendValue(of: field, to: &scratch)
                    section = assembler.section(forCanonical: scratch.bytes(from: mark)) {
                        .string(scanner.string(of: field))
                    }.index
                    scratch.truncate(to: mark)
                }

                let content: ContentHash
                let rowHash: ContentHash
                if hashes.has_content {
                    content = ContentHash(low: hashes.content_low, high: hashes.content_high)
                    rowHash = ContentHash(low: hashes.row_low, high: hashes.row_high)
                } else {
                    var isFirst = true
                    for column in 0..<columns.count where !columns.ignored[column] {
                        if !isFirst { scratch.append(delimiter) }
                        isFirst = false
                        guard column < available else { continue }
                        let field = scanner.field(column, of: row)
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
                    rowHash = scratch.hash128(from: 0)
                    content = layout.contentHash(ofRow: rowHash)
                    scratch.truncate(to: 0)
                }

                switch columns.key.count {
                case 0:
                    assembler.append(start: row.start, end: row.end, key: .hashed(rowHash), content: content, section: section)
                case 1 where hashes.has_key:
                    assembler.append(
                        start: row.start, end: row.end,
                        key: .hashed(ContentHash(low: hashes.key_low, high: hashes.key_high)),
                        content: content, section: section)
                default:
                    for (part, column) in columns.key.enumerated() {
                        guard column < available else {
                            throw .missingField(columns.keyNames[part], at: scanner.position(of: row.start))
                        }
                        let prefix = columns.key.count > 1 ? KeyCanonicalForm.beginField(in: &scratch) : nil
                        scanner.appendValue(of: scanner.field(column, of: row), to: &scratch)
                        if let prefix { KeyCanonicalForm.endField(startedAt: prefix, in: &scratch) }
                    }
                    assembler.append(
                        start: row.start, end: row.end, key: .bytes(scratch.bytes()), content: content,
                        section: section)
                    scratch.truncate(to: 0)
                }
            }
            if let error = batch.error { throw error }
            guard batch.hasMore else { return scanner.count }
            index = batch.next
            if index >= limit { return index }
        }
    }

    /// What a CSV file's header row says: the roles of its columns, where the rows start, and the
    /// blank lines before it.
    struct Header {
        let columns: CSVColumns
        /// Where the first row (or the blank lines before it) starts: right after the header's
        /// line ending.
        let dataStart: Int
        let blankLineCount: Int
    }

    /// Reads the header row of the file `scanner` scans (after its byte-order mark, if it has one).
    func readHeader(scanner: inout CSVScanner, hadByteOrderMark: Bool) throws(ListFormatError) -> Header {
        let headerBatch = scanner.scan(from: hadByteOrderMark ? 3 : 0, rowLimit: 1)
        if let error = headerBatch.error { throw error }
        guard headerBatch.rowCount == 1 else { throw .missingHeader(at: scanner.position(of: headerBatch.next)) }
        let headerRow = scanner.row(0)
        let columns = try CSVColumns(
            header: try header(of: headerRow, scanner: scanner), options: options,
            headerPosition: { scanner.position(of: headerRow.start) })
        return Header(columns: columns, dataStart: headerRow.next, blankLineCount: headerBatch.blankLineCount)
    }

    /// The header's names; empty and repeated names are errors.
    private func header(of row: CSVScanner.Row, scanner: borrowing CSVScanner) throws(ListFormatError) -> [String] {
        var names: [String] = []
        var columnOfName: [String: Int] = [:]
        for column in 0..<row.fieldCount {
            let field = scanner.field(column, of: row)
            let name = scanner.string(of: field)
            guard !name.isEmpty else {
                throw .emptyHeaderName(column: column + 1, at: scanner.position(of: scanner.startOfField(field)))
            }
            if let first = columnOfName[name] {
                throw .duplicateHeaderName(
                    name, column: column + 1, firstColumn: first + 1,
                    at: scanner.position(of: scanner.startOfField(field)))
            }
            columnOfName[name] = column
            names.append(name)
        }
        return names
    }

    /// Applies the ragged-row policy to a row whose field count differs from
    /// the header's.
    private func checkRaggedRow(
        _ row: CSVScanner.Row, columns: CSVColumns, scanner: borrowing CSVScanner, report: inout ReadReport
    ) throws(ListFormatError) {
        let isShort = row.fieldCount < columns.count
        switch (options.raggedRows, isShort) {
        case (.pad, true):
            report.paddedRowCount += 1
        case (.truncate, false):
            report.truncatedRowCount += 1
        default:
            let offset = isShort ? row.end : scanner.startOfField(scanner.field(columns.count, of: row))
            throw .raggedRow(expected: columns.count, found: row.fieldCount, at: scanner.position(of: offset))
        }
    }
}
